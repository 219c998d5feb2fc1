// core/debug_offsets: the real _Py_DebugOffsets blocks of the fixture
// interpreters (tests/data/debug_offsets, taken from their cores) against the
// debug info of the same builds (../shared/fixtures/layouts), a hand-built
// 3.15 block, and the refusal of corrupt blocks.
#include "core/layout/debug_offsets.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::LayoutFacts;

struct RealBlock {
  std::string name;  // fixture version, "3.14.7t"
  uint32_t hexversion;
  bool free_threaded;
};

const RealBlock kRealBlocks[] = {
    {"3.13.15", 0x030d0ff0, false},
    {"3.13.15t", 0x030d0ff0, true},
    {"3.14.7", 0x030e07f0, false},
    {"3.14.7t", 0x030e07f0, true},
};

std::string DataPath(const std::string& name) {
  return "tests/data/debug_offsets/" + name + ".bin";
}

std::vector<uint8_t> LoadBlock(const std::string& name) {
  auto bytes = testing::ReadFileBytes(testing::RunfilePath(DataPath(name)));
  EXPECT_TRUE(bytes.has_value()) << "cannot read " << DataPath(name);
  return bytes.value_or(std::vector<uint8_t>{});
}

// Byte position of a named field in a block of the given minor version.
size_t FieldPosition(int minor, std::string_view field) {
  const auto& names = DebugOffsetsFieldNames(minor);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == field) return 24 + 8 * i;
  }
  ADD_FAILURE() << "no field " << field << " in 3." << minor;
  return 0;
}

void Put(std::vector<uint8_t>& block, size_t position, uint64_t value) {
  std::memcpy(block.data() + position, &value, 8);
}

void SetField(std::vector<uint8_t>& block, int minor, std::string_view field, uint64_t value) {
  Put(block, FieldPosition(minor, field), value);
}

Result<Layout> Parse(const std::vector<uint8_t>& block) {
  return LayoutFromDebugOffsets(block.data(), block.size());
}

// --- the real blocks ---------------------------------------------------------

class RealBlockTest : public ::testing::TestWithParam<RealBlock> {};

TEST_P(RealBlockTest, ParsesWithKeyOffsets) {
  const RealBlock& real = GetParam();
  auto layout = Parse(LoadBlock(real.name));
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const Layout& l = *layout;
  const bool is314 = real.hexversion >= 0x030e0000;
  const bool ft = real.free_threaded;

  EXPECT_EQ(l.version.hexversion, real.hexversion);
  EXPECT_EQ(l.free_threaded, ft);
  EXPECT_EQ(l.source, LayoutSource::kDebugOffsets);
  EXPECT_EQ(DescribeLayoutSource(l), is314 ? "_Py_DebugOffsets 3.14" : "_Py_DebugOffsets 3.13");
  EXPECT_TRUE(l.warning.empty()) << l.warning;

  // Values read from the debug info of the same builds (layouts/*.tsv).
  EXPECT_EQ(l.runtime.interpreters_head, is314 ? 808 : 632);
  EXPECT_EQ(l.runtime.interpreters_main, is314 ? 816 : 640);
  EXPECT_EQ(l.interp.threads_head, 7344);
  EXPECT_EQ(l.interp.threads_main, is314 ? 7360 : 7352);  // 3.13: its file's fact
  EXPECT_EQ(l.interp.threads_main_from_table, !is314);
  EXPECT_EQ(l.interp.gc_collecting, 7600);
  EXPECT_EQ(l.interp.ceval_gil, 16);
  EXPECT_EQ(l.interp.gil_enabled, ft ? 0 : kAbsent);
  EXPECT_EQ(l.gil.last_holder, ft ? 16 : 8);
  EXPECT_EQ(l.gil.locked, ft ? 24 : 16);
  EXPECT_EQ(l.tstate.native_thread_id, 160);
  EXPECT_EQ(l.tstate.current_frame, 72);
  EXPECT_EQ(l.tstate.cframe, kAbsent);
  EXPECT_EQ(l.frame.size, is314 ? 88 : 80);
  EXPECT_EQ(l.frame.owner, is314 ? (ft ? 78 : 74) : 70);
  EXPECT_EQ(l.frame.localsplus, is314 ? 80 : 72);
  EXPECT_EQ(l.frame.tlbc_index, is314 && ft ? 72 : kAbsent);
  EXPECT_FALSE(l.frame.instr_is_previous);
  EXPECT_EQ(l.frame.owner_first_internal, 3);
  EXPECT_EQ(l.frame.stackref_tag_mask, is314 ? 3u : 0u);
  EXPECT_EQ(l.code.qualname, ft ? 144 : 128);
  EXPECT_EQ(l.code.tlbc, is314 && ft ? 224 : kAbsent);
  EXPECT_EQ(l.object.ob_type, ft ? 24 : 8);
  EXPECT_EQ(l.unicode.ascii_data, ft ? 56 : 40);
  EXPECT_EQ(l.unicode.compact_data, ft ? 72 : 56);
  // Checked on the cores' static strings: free-threaded 3.14 makes
  // `interned` a byte, free-threaded 3.13 does not.
  EXPECT_EQ(l.unicode.kind_shift, is314 && ft ? 8u : 2u);
  EXPECT_EQ(l.unicode.compact_bit, is314 && ft ? 11u : 5u);
  EXPECT_EQ(l.unicode.ascii_bit, is314 && ft ? 12u : 6u);
}

// Every Layout field against the debug info of the build the block came from.
TEST_P(RealBlockTest, AgreesWithDebugInfo) {
  const RealBlock& real = GetParam();
  const std::string dir = testing::FixtureLayoutsDir(DataPath(real.name));
  if (dir.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(DataPath(real.name));
  auto facts = LayoutFacts::Load(dir + "/" + real.name + ".tsv");
  ASSERT_TRUE(facts.has_value());
  const LayoutFacts& f = *facts;
  auto layout = Parse(LoadBlock(real.name));
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const Layout& l = *layout;
  const std::string rt = "struct pyruntimestate", is = "struct _is", ts = "struct _ts",
                    fr = "struct _PyInterpreterFrame", co = "PyCodeObject";
  const int32_t interp_size = f.Get(rt, "_main_interpreter").value_or(testing::Member{}).size;

  EXPECT_EQ(l.runtime.interpreters_head, f.Offset(rt, "interpreters.head"));
  EXPECT_EQ(l.runtime.interpreters_main, f.Offset(rt, "interpreters.main"));
  EXPECT_EQ(l.interp.size, interp_size);
  EXPECT_EQ(l.interp.next, f.Offset(is, "next"));
  EXPECT_EQ(l.interp.id, f.Offset(is, "id"));
  EXPECT_EQ(l.interp.threads_head, f.Offset(is, "threads.head"));
  if (l.interp.threads_main != kAbsent) {
    EXPECT_EQ(l.interp.threads_main, f.Offset(is, "threads.main"));
  }
  EXPECT_EQ(l.interp.sysdict, f.Offset(is, "sysdict"));
  EXPECT_EQ(l.interp.modules, f.Offset(is, "imports.modules"));
  EXPECT_EQ(l.interp.gc_collecting, f.Offset(is, "gc.collecting"));
  EXPECT_EQ(l.interp.ceval_gil, f.Offset(is, "ceval.gil"));
  EXPECT_EQ(l.gil.locked, f.Offset("struct _gil_runtime_state", "locked"));
  EXPECT_EQ(l.gil.last_holder, f.Offset("struct _gil_runtime_state", "last_holder"));
  if (real.free_threaded) {
    EXPECT_EQ(l.interp.gil_enabled, f.Offset("struct _gil_runtime_state", "enabled"));
  }
  EXPECT_EQ(l.tstate.prev, f.Offset(ts, "prev"));
  EXPECT_EQ(l.tstate.next, f.Offset(ts, "next"));
  EXPECT_EQ(l.tstate.interp, f.Offset(ts, "interp"));
  EXPECT_EQ(l.tstate.current_frame, f.Offset(ts, "current_frame"));
  EXPECT_EQ(l.tstate.thread_id, f.Offset(ts, "thread_id"));
  EXPECT_EQ(l.tstate.native_thread_id, f.Offset(ts, "native_thread_id"));
  EXPECT_EQ(l.frame.size, f.AlignedEnd(fr));
  EXPECT_EQ(l.frame.previous, f.Offset(fr, "previous"));
  EXPECT_EQ(l.frame.executable, f.Offset(fr, "f_executable"));
  EXPECT_EQ(l.frame.instr_ptr, f.Offset(fr, "instr_ptr"));
  EXPECT_EQ(l.frame.owner, f.Offset(fr, "owner"));
  EXPECT_EQ(l.frame.localsplus, f.Offset(fr, "localsplus"));
  if (l.frame.tlbc_index != kAbsent) {
    EXPECT_EQ(l.frame.tlbc_index, f.Offset(fr, "tlbc_index"));
  }
  EXPECT_EQ(l.code.size, f.AlignedEnd(co));
  EXPECT_EQ(l.code.filename, f.Offset(co, "co_filename"));
  EXPECT_EQ(l.code.name, f.Offset(co, "co_name"));
  EXPECT_EQ(l.code.qualname, f.Offset(co, "co_qualname"));
  EXPECT_EQ(l.code.linetable, f.Offset(co, "co_linetable"));
  EXPECT_EQ(l.code.firstlineno, f.Offset(co, "co_firstlineno"));
  EXPECT_EQ(l.code.argcount, f.Offset(co, "co_argcount"));
  EXPECT_EQ(l.code.localsplusnames, f.Offset(co, "co_localsplusnames"));
  EXPECT_EQ(l.code.localspluskinds, f.Offset(co, "co_localspluskinds"));
  EXPECT_EQ(l.code.code_adaptive, f.Offset(co, "co_code_adaptive"));
  EXPECT_EQ(l.code.firsttraceable, f.Offset(co, "_co_firsttraceable"));
  if (l.code.tlbc != kAbsent) {
    EXPECT_EQ(l.code.tlbc, f.Offset(co, "co_tlbc"));
  }
  EXPECT_EQ(l.object.ob_type, f.Offset("PyObject", "ob_type"));
  EXPECT_EQ(l.object.ob_size, f.Offset("PyVarObject", "ob_size"));
  EXPECT_EQ(l.type.tp_name, f.Offset("PyTypeObject", "tp_name"));
  EXPECT_EQ(l.type.tp_flags, f.Offset("PyTypeObject", "tp_flags"));
  EXPECT_EQ(l.unicode.length, f.Offset("PyASCIIObject", "length"));
  EXPECT_EQ(l.unicode.state, real.name == "3.14.7t" ? f.Offset("PyASCIIObject", "state.interned")
                                                    : f.Offset("PyASCIIObject", "state.2"));
  EXPECT_EQ(l.unicode.ascii_data, f.Get("PyCompactUnicodeObject", "_base")->size);
  EXPECT_EQ(l.unicode.compact_data, f.Get("PyUnicodeObject", "_base")->size);
  EXPECT_EQ(l.bytes.ob_size, f.Offset("PyVarObject", "ob_size"));
  EXPECT_EQ(l.bytes.ob_sval, f.Offset("PyBytesObject", "ob_sval"));
  EXPECT_EQ(l.tuple.ob_size, f.Offset("PyVarObject", "ob_size"));
  EXPECT_EQ(l.tuple.ob_item, f.Offset("PyTupleObject", "ob_item"));
  EXPECT_EQ(l.list.ob_size, f.Offset("PyVarObject", "ob_size"));
  EXPECT_EQ(l.list.ob_item, f.Offset("PyListObject", "ob_item"));
  EXPECT_EQ(l.dict.ma_used, f.Offset("PyDictObject", "ma_used"));
  EXPECT_EQ(l.dict.ma_keys, f.Offset("PyDictObject", "ma_keys"));
  EXPECT_EQ(l.dict.ma_values, f.Offset("PyDictObject", "ma_values"));
  EXPECT_EQ(l.float_object.ob_fval, f.Offset("PyFloatObject", "ob_fval"));
  const int32_t long_value = f.Offset("struct _longobject", "long_value");
  EXPECT_EQ(l.long_object.lv_tag, long_value + f.Offset("struct _PyLongValue", "lv_tag"));
  EXPECT_EQ(l.long_object.ob_digit, long_value + f.Offset("struct _PyLongValue", "ob_digit"));
}

// The per-minor table of field names is the block's real layout.
TEST_P(RealBlockTest, FieldTableMatchesDebugInfo) {
  const RealBlock& real = GetParam();
  const std::string dir = testing::FixtureLayoutsDir(DataPath(real.name));
  if (dir.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(DataPath(real.name));
  auto facts = LayoutFacts::Load(dir + "/" + real.name + ".tsv");
  ASSERT_TRUE(facts.has_value());
  auto rows = facts->MembersOf("struct _Py_DebugOffsets");
  const auto& names = DebugOffsetsFieldNames(PythonVersion{real.hexversion}.minor());
  ASSERT_EQ(rows.size(), names.size() + 3);  // + cookie, version, free_threaded
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(rows[i + 3].first, names[i]);
    EXPECT_EQ(rows[i + 3].second.offset, static_cast<int32_t>(24 + 8 * i)) << names[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Cores, RealBlockTest, ::testing::ValuesIn(kRealBlocks),
                         [](const auto& info) {
                           std::string name = "Python" + info.param.name;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

// --- 3.15, hand-built -------------------------------------------------------

// A 3.15 block written by byte position, following the order of
// Include/internal/pycore_debug_offsets.h in 3.15 independently of the
// parser's table: 24-byte header, then 108 uint64 fields, 888 bytes. The
// values are those of a plausible x86-64 build (3.14's, plus the new fields).
std::vector<uint8_t> Block315(bool free_threaded) {
  std::vector<uint8_t> b(888, 0);
  std::memcpy(b.data(), "xdebugpy", 8);
  Put(b, 8, 0x030f00f0);
  Put(b, 16, free_threaded ? 1 : 0);
  const uint64_t ob = free_threaded ? 16 : 0;  // the larger free-threaded PyObject header
  // runtime_state
  Put(b, 24, 316616); Put(b, 32, 784); Put(b, 40, 808);
  // interpreter_state
  Put(b, 48, 225864); Put(b, 56, 7280); Put(b, 64, 7272); Put(b, 72, 7344); Put(b, 80, 7360);
  Put(b, 88, 7408); Put(b, 96, 7688); Put(b, 104, 7672); Put(b, 112, 7680); Put(b, 120, 16);
  Put(b, 128, 7784); Put(b, 136, 0); Put(b, 144, 7800 + ob / 2); Put(b, 152, 7792 + ob / 2);
  Put(b, 160, 7992); Put(b, 168, free_threaded ? 17628 : 0);
  // thread_state: size prev next interp current_frame base_frame
  // last_profiled_frame last_profiled_frame_seq thread_id native_thread_id
  // datastack_chunk status holds_gil gil_requested current_exception exc_state
  Put(b, 176, 880); Put(b, 184, 0); Put(b, 192, 8); Put(b, 200, 16); Put(b, 208, 72);
  Put(b, 216, 80); Put(b, 224, 88); Put(b, 232, 96); Put(b, 240, 176); Put(b, 248, 184);
  Put(b, 256, 248); Put(b, 264, 32); Put(b, 272, 36); Put(b, 280, 40); Put(b, 288, 136);
  Put(b, 296, 280);
  Put(b, 304, 0);  // err_stackitem.exc_value
  // interpreter_frame: size previous executable instr_ptr localsplus owner stackpointer tlbc_index
  Put(b, 312, 88); Put(b, 320, 8); Put(b, 328, 0); Put(b, 336, 56); Put(b, 344, 80);
  Put(b, 352, free_threaded ? 78 : 74); Put(b, 360, 64); Put(b, 368, free_threaded ? 72 : 0);
  // code_object: size filename name qualname linetable firstlineno argcount
  // localsplusnames localspluskinds co_code_adaptive co_tlbc
  Put(b, 376, free_threaded ? 240 : 216); Put(b, 384, 112 + ob); Put(b, 392, 120 + ob);
  Put(b, 400, 128 + ob); Put(b, 408, 136 + ob); Put(b, 416, 68 + ob); Put(b, 424, 52 + ob);
  Put(b, 432, 96 + ob); Put(b, 440, 104 + ob); Put(b, 448, free_threaded ? 232 : 208);
  Put(b, 456, free_threaded ? 224 : 0);
  Put(b, 464, 16 + ob); Put(b, 472, 8 + ob);  // pyobject
  // type_object: size tp_name tp_repr tp_flags tp_basicsize tp_dictoffset
  Put(b, 480, 416 + ob); Put(b, 488, 24 + ob); Put(b, 496, 88 + ob); Put(b, 504, 168 + ob);
  Put(b, 512, 32 + ob); Put(b, 520, 288 + ob);
  Put(b, 528, 944 + ob); Put(b, 536, 888 + ob);  // heap_type_object
  Put(b, 544, 40 + ob); Put(b, 552, 32 + ob); Put(b, 560, 16 + ob);  // tuple
  Put(b, 568, 40 + ob); Put(b, 576, 24 + ob); Put(b, 584, 16 + ob);  // list
  Put(b, 592, 200 + ob); Put(b, 600, 24 + ob); Put(b, 608, 40 + ob); Put(b, 616, 32 + ob);  // set
  Put(b, 624, 48 + ob); Put(b, 632, 32 + ob); Put(b, 640, 40 + ob);  // dict
  Put(b, 648, 24 + ob); Put(b, 656, 16 + ob);                        // float
  Put(b, 664, 32 + ob); Put(b, 672, 16 + ob); Put(b, 680, 24 + ob);  // long
  Put(b, 688, 40 + ob); Put(b, 696, 16 + ob); Put(b, 704, 32 + ob);  // bytes
  // unicode_object: size state length asciiobject_size compactunicodeobject_size
  Put(b, 712, 64 + ob); Put(b, 720, 32 + ob); Put(b, 728, 16 + ob); Put(b, 736, 40 + ob);
  Put(b, 744, 56 + ob);
  // gc: size collecting frame generation_stats_size generation_stats
  Put(b, 752, 176); Put(b, 760, 112); Put(b, 768, 120); Put(b, 776, 1112); Put(b, 784, 104);
  Put(b, 792, 160 + ob); Put(b, 800, 24 + ob); Put(b, 808, 72 + ob); Put(b, 816, 67 + ob);  // gen
  Put(b, 824, 0); Put(b, 832, 8);  // llist_node
  Put(b, 840, 24); Put(b, 848, 336); Put(b, 856, 7856); Put(b, 864, 0); Put(b, 872, 4);
  Put(b, 880, 512);  // debugger_support
  return b;
}

TEST(DebugOffsets315, TableHasTheHeadersFields) {
  EXPECT_EQ(24 + 8 * DebugOffsetsFieldNames(15).size(), kDebugOffsetsMaxSize);
  EXPECT_EQ(24 + 8 * DebugOffsetsFieldNames(14).size(), 760u);
  EXPECT_EQ(24 + 8 * DebugOffsetsFieldNames(13).size(), 584u);
  EXPECT_EQ(FieldPosition(15, "thread_state.native_thread_id"), 248u);
  EXPECT_EQ(FieldPosition(15, "err_stackitem.exc_value"), 304u);
  EXPECT_EQ(FieldPosition(15, "interpreter_frame.owner"), 352u);
  EXPECT_EQ(FieldPosition(15, "unicode_object.compactunicodeobject_size"), 744u);
  EXPECT_EQ(FieldPosition(15, "debugger_support.debugger_script_path_size"), 880u);
}

TEST(DebugOffsets315, ParsesDefaultBuild) {
  auto layout = Parse(Block315(false));
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const Layout& l = *layout;
  EXPECT_EQ(l.version.hexversion, 0x030f00f0u);
  EXPECT_EQ(l.source, LayoutSource::kDebugOffsets);
  EXPECT_EQ(DescribeLayoutSource(l), "_Py_DebugOffsets 3.15");
  EXPECT_TRUE(l.warning.empty());
  EXPECT_FALSE(l.free_threaded);
  EXPECT_EQ(l.runtime.interpreters_head, 808);
  EXPECT_EQ(l.interp.threads_main, 7360);
  EXPECT_EQ(l.interp.gc_collecting, 7408 + 112);
  EXPECT_EQ(l.gil.locked, 16);
  EXPECT_EQ(l.gil.last_holder, 8);
  EXPECT_EQ(l.interp.gil_enabled, kAbsent);
  EXPECT_EQ(l.tstate.size, 880);
  EXPECT_EQ(l.tstate.current_frame, 72);
  EXPECT_EQ(l.tstate.thread_id, 176);
  EXPECT_EQ(l.tstate.native_thread_id, 184);
  EXPECT_EQ(l.frame.owner, 74);
  EXPECT_EQ(l.frame.localsplus, 80);
  EXPECT_EQ(l.frame.tlbc_index, kAbsent);
  EXPECT_EQ(l.frame.owner_first_internal, 3);
  EXPECT_EQ(l.frame.stackref_tag_mask, 3u);
  EXPECT_EQ(l.code.qualname, 128);
  EXPECT_EQ(l.code.code_adaptive, 208);
  EXPECT_EQ(l.code.firsttraceable, 192);
  EXPECT_EQ(l.code.tlbc, kAbsent);
  EXPECT_EQ(l.object.ob_type, 8);
  EXPECT_EQ(l.tuple.ob_item, 32);
  EXPECT_EQ(l.unicode.ascii_data, 40);
  EXPECT_EQ(l.unicode.compact_data, 56);
  EXPECT_EQ(l.unicode.kind_shift, 2u);
}

TEST(DebugOffsets315, ReadsCompactSizeFromTheBlock) {
  auto block = Block315(false);
  Put(block, 744, 64);  // compactunicodeobject_size, no longer asciiobject_size + 16
  auto layout = Parse(block);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  EXPECT_EQ(layout->unicode.compact_data, 64);
}

TEST(DebugOffsets315, ParsesFreeThreadedBuild) {
  auto layout = Parse(Block315(true));
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const Layout& l = *layout;
  EXPECT_TRUE(l.free_threaded);
  EXPECT_EQ(l.interp.gil_enabled, 0);
  EXPECT_EQ(l.gil.last_holder, 16);
  EXPECT_EQ(l.gil.locked, 24);
  EXPECT_EQ(l.frame.owner, 78);
  EXPECT_EQ(l.frame.tlbc_index, 72);
  EXPECT_EQ(l.code.tlbc, 224);
  EXPECT_EQ(l.code.firsttraceable, 208);
  EXPECT_EQ(l.object.ob_type, 24);
  EXPECT_EQ(l.unicode.ascii_data, 56);
  EXPECT_EQ(l.unicode.compact_data, 72);
  EXPECT_EQ(l.unicode.kind_shift, 8u);
  EXPECT_EQ(l.unicode.compact_bit, 11u);
  EXPECT_EQ(l.unicode.ascii_bit, 12u);
}

TEST(DebugOffsetsNewer, UsesNewestTableWithWarning) {
  auto block = Block315(false);
  Put(block, 8, 0x031000a2);  // 3.16.0a2
  EXPECT_TRUE(DebugOffsetsVersionIsNewerThanKnown(0x031000a2));
  EXPECT_FALSE(DebugOffsetsVersionIsNewerThanKnown(0x030f00f0));
  EXPECT_FALSE(DebugOffsetsVersionIsNewerThanKnown(0x030d00f0));
  auto layout = Parse(block);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  EXPECT_EQ(layout->version.hexversion, 0x031000a2u);
  EXPECT_EQ(layout->tstate.native_thread_id, 184);  // read with the 3.15 table
  EXPECT_NE(layout->warning.find("3.16.0a2"), std::string::npos) << layout->warning;
  EXPECT_NE(layout->warning.find("3.15"), std::string::npos) << layout->warning;
}

// A 3.16 whose block gained a field before the end no longer lines up with the 3.15
// list: refused in one line naming the version, not read as plausible garbage.
TEST(DebugOffsetsNewer, ShiftedBlockIsRefused) {
  auto block = Block315(false);
  Put(block, 8, 0x031000a2);  // 3.16.0a2
  // Every field from gen_object on one slot later (a field inserted before it).
  for (size_t offset = 880; offset >= 800; offset -= 8) {
    uint64_t value;
    std::memcpy(&value, block.data() + offset - 8, 8);
    Put(block, offset, value);
  }
  auto layout = Parse(block);
  ASSERT_FALSE(layout.ok()) << "read a shifted 3.16 block";
  EXPECT_EQ(layout.error().kind, ErrorKind::kUnsupportedVersion);
  EXPECT_EQ(layout.error().message,
            "Python 3.16.0a2 is newer than 3.15, and its _Py_DebugOffsets block does not match "
            "the 3.15 layout (llist_node.next reads 67, not 0): pyunwind cannot read this version");
}

// --- refusals -------------------------------------------------------------------

void ExpectRefused(const Result<Layout>& result, const std::string& mentions) {
  ASSERT_FALSE(result.ok()) << "accepted a corrupt block";
  const std::string& message = result.error().message;
  EXPECT_NE(message.find(mentions), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(result.error().kind, ErrorKind::kRefusedLayout) << message;
}

TEST(DebugOffsetsRefusal, WrongCookie) {
  auto block = LoadBlock("3.14.7");
  block[0] = 'X';
  ExpectRefused(Parse(block), "cookie");
}

TEST(DebugOffsetsRefusal, Truncated) {
  auto block = LoadBlock("3.14.7");
  ExpectRefused(LayoutFromDebugOffsets(block.data(), 16), "truncated");
  ExpectRefused(LayoutFromDebugOffsets(nullptr, 0), "truncated");
  ExpectRefused(LayoutFromDebugOffsets(block.data(), 759), "truncated");  // 3.14 needs 760
  EXPECT_TRUE(LayoutFromDebugOffsets(block.data(), 760).ok());
  auto block313 = LoadBlock("3.13.15");
  ExpectRefused(LayoutFromDebugOffsets(block313.data(), 583), "truncated");
  EXPECT_TRUE(LayoutFromDebugOffsets(block313.data(), 584).ok());
}

TEST(DebugOffsetsRefusal, OffsetOutOfRange) {
  auto block = LoadBlock("3.14.7");
  SetField(block, 14, "thread_state.native_thread_id", 5000);  // the thread state is 832 bytes
  ExpectRefused(Parse(block), "thread_state.native_thread_id");

  block = LoadBlock("3.13.15t");
  SetField(block, 13, "code_object.qualname", 224);  // == sizeof(PyCodeObject)
  ExpectRefused(Parse(block), "code_object.qualname");

  block = LoadBlock("3.14.7t");
  SetField(block, 14, "interpreter_frame.owner", 88);
  ExpectRefused(Parse(block), "interpreter_frame.owner");

  block = LoadBlock("3.13.15");
  SetField(block, 13, "gc.collecting", 1000);  // the GC state is 240 bytes
  ExpectRefused(Parse(block), "gc.collecting");

  block = LoadBlock("3.14.7");
  SetField(block, 14, "interpreter_state.gil_runtime_state", 9000);  // after locked and holder
  ExpectRefused(Parse(block), "GIL");

  block = LoadBlock("3.14.7");
  SetField(block, 14, "runtime_state.interpreters_head", uint64_t(1) << 62);
  ExpectRefused(Parse(block), "runtime_state.interpreters_head");
}

TEST(DebugOffsetsRefusal, AbsurdSizes) {
  auto block = LoadBlock("3.14.7");
  SetField(block, 14, "interpreter_frame.size", uint64_t(1) << 40);
  ExpectRefused(Parse(block), "interpreter_frame.size");

  block = LoadBlock("3.13.15");
  SetField(block, 13, "thread_state.size", 0);
  ExpectRefused(Parse(block), "thread_state.size");

  block = LoadBlock("3.14.7t");
  SetField(block, 14, "interpreter_state.size", 0xffffffffffffffffull);
  ExpectRefused(Parse(block), "interpreter_state.size");

  block = LoadBlock("3.13.15t");
  SetField(block, 13, "unicode_object.asciiobject_size", 4);  // before the state field
  ExpectRefused(Parse(block), "string");
}

TEST(DebugOffsetsRefusal, VersionBefore313WithCookie) {
  auto block = LoadBlock("3.13.15");
  Put(block, 8, 0x030c06f0);  // 3.12.6
  ExpectRefused(Parse(block), "3.12.6");
}

TEST(DebugOffsetsRefusal, GarbageVersion) {
  auto block = LoadBlock("3.14.7");
  Put(block, 8, 0x040000f0);  // 4.0.0
  ExpectRefused(Parse(block), "version");
  Put(block, 8, 0x1234567890abcdefull);
  ExpectRefused(Parse(block), "version");
  Put(block, 8, 0x030e0705);  // release level 0
  ExpectRefused(Parse(block), "version");
}

TEST(DebugOffsetsRefusal, FreeThreadedNotABoolean) {
  auto block = LoadBlock("3.14.7");
  Put(block, 16, 2);
  ExpectRefused(Parse(block), "free_threaded");
}

}  // namespace
}  // namespace pyunwind

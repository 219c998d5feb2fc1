// The 3.11 and 3.12 tables (core/layout/python311.cc, python312.cc) against the debug info of
// the fixture interpreters (../shared/fixtures/layouts/3.11.2.tsv, 3.12.6.tsv) and of Debian's
// debug build python3.11d (tests/data/layouts/3.11.2d.tsv, made by make_debug_build_tsv.py;
// the release table holds for it unchanged):
// every field a table sets must equal the fact, or be listed below as one the
// debug-info tables cannot state.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/layout/layout.h"
#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::LayoutFacts;

constexpr char kAnchor[] = "tests/data/debug_offsets/3.14.7.bin";

struct Check {
  std::string field;
  int64_t actual;
  int64_t expected;
};

// Every int32 field of the Layout, by name, for the coverage check.
std::vector<std::pair<std::string, int32_t>> AllFields(const Layout& l) {
  return {
      {"runtime.interpreters_head", l.runtime.interpreters_head},
      {"runtime.interpreters_main", l.runtime.interpreters_main},
      {"runtime.main_thread", l.runtime.main_thread},
      {"runtime.gil", l.runtime.gil},
      {"runtime.main_interpreter_embedded", l.runtime.main_interpreter_embedded},
      {"interp.size", l.interp.size},
      {"interp.next", l.interp.next},
      {"interp.id", l.interp.id},
      {"interp.runtime", l.interp.runtime},
      {"interp.threads_head", l.interp.threads_head},
      {"interp.threads_main", l.interp.threads_main},
      {"interp.sysdict", l.interp.sysdict},
      {"interp.modules", l.interp.modules},
      {"interp.gc_collecting", l.interp.gc_collecting},
      {"interp.ceval_gil", l.interp.ceval_gil},
      {"interp.gil_enabled", l.interp.gil_enabled},
      {"gil.locked", l.gil.locked},
      {"gil.last_holder", l.gil.last_holder},
      {"tstate.size", l.tstate.size},
      {"tstate.prev", l.tstate.prev},
      {"tstate.next", l.tstate.next},
      {"tstate.interp", l.tstate.interp},
      {"tstate.thread_id", l.tstate.thread_id},
      {"tstate.native_thread_id", l.tstate.native_thread_id},
      {"tstate.current_frame", l.tstate.current_frame},
      {"tstate.cframe", l.tstate.cframe},
      {"tstate.cframe_current_frame", l.tstate.cframe_current_frame},
      {"frame.size", l.frame.size},
      {"frame.previous", l.frame.previous},
      {"frame.executable", l.frame.executable},
      {"frame.instr_ptr", l.frame.instr_ptr},
      {"frame.owner", l.frame.owner},
      {"frame.localsplus", l.frame.localsplus},
      {"frame.stacktop", l.frame.stacktop},
      {"frame.tlbc_index", l.frame.tlbc_index},
      {"code.size", l.code.size},
      {"code.filename", l.code.filename},
      {"code.name", l.code.name},
      {"code.qualname", l.code.qualname},
      {"code.linetable", l.code.linetable},
      {"code.firstlineno", l.code.firstlineno},
      {"code.argcount", l.code.argcount},
      {"code.localsplusnames", l.code.localsplusnames},
      {"code.localspluskinds", l.code.localspluskinds},
      {"code.code_adaptive", l.code.code_adaptive},
      {"code.firsttraceable", l.code.firsttraceable},
      {"code.tlbc", l.code.tlbc},
      {"object.ob_type", l.object.ob_type},
      {"object.ob_size", l.object.ob_size},
      {"type.tp_name", l.type.tp_name},
      {"type.tp_flags", l.type.tp_flags},
      {"unicode.length", l.unicode.length},
      {"unicode.state", l.unicode.state},
      {"unicode.ascii_data", l.unicode.ascii_data},
      {"unicode.compact_data", l.unicode.compact_data},
      {"bytes.ob_size", l.bytes.ob_size},
      {"bytes.ob_sval", l.bytes.ob_sval},
      {"tuple.ob_size", l.tuple.ob_size},
      {"tuple.ob_item", l.tuple.ob_item},
      {"list.ob_size", l.list.ob_size},
      {"list.ob_item", l.list.ob_item},
      {"dict.ma_keys", l.dict.ma_keys},
      {"dict.ma_values", l.dict.ma_values},
      {"dict.ma_used", l.dict.ma_used},
      {"long.ob_size", l.long_object.ob_size},
      {"long.lv_tag", l.long_object.lv_tag},
      {"long.ob_digit", l.long_object.ob_digit},
      {"float.ob_fval", l.float_object.ob_fval},
  };
}

// Set fields the debug-info tables cannot state, and why.
const std::set<std::string> kNoFact = {
    // The tables have no rows for struct _PyCFrame; its layout is checked
    // indirectly below through the size of tstate.root_cframe.
    "tstate.cframe_current_frame",
};

std::vector<Check> ChecksFor(const Layout& l, const LayoutFacts& f, int minor) {
  const std::string rt = "struct pyruntimestate", is = "struct _is", ts = "struct _ts",
                    fr = "struct _PyInterpreterFrame", co = "PyCodeObject";
  std::vector<Check> c = {
      {"runtime.interpreters_head", l.runtime.interpreters_head, f.Offset(rt, "interpreters.head")},
      {"runtime.interpreters_main", l.runtime.interpreters_main, f.Offset(rt, "interpreters.main")},
      {"runtime.main_thread", l.runtime.main_thread, f.Offset(rt, "main_thread")},
      {"runtime.main_interpreter_embedded", l.runtime.main_interpreter_embedded,
       f.Offset(rt, "_main_interpreter")},
      {"interp.size", l.interp.size, f.Get(rt, "_main_interpreter").value_or(testing::Member{}).size},
      {"interp.next", l.interp.next, f.Offset(is, "next")},
      {"interp.id", l.interp.id, f.Offset(is, "id")},
      {"interp.runtime", l.interp.runtime, f.Offset(is, "runtime")},
      {"interp.threads_head", l.interp.threads_head, f.Offset(is, "threads.head")},
      {"interp.sysdict", l.interp.sysdict, f.Offset(is, "sysdict")},
      {"interp.modules", l.interp.modules,
       f.Offset(is, minor == 11 ? "modules" : "imports.modules")},
      {"interp.gc_collecting", l.interp.gc_collecting, f.Offset(is, "gc.collecting")},
      {"gil.locked", l.gil.locked, f.Offset("struct _gil_runtime_state", "locked")},
      {"gil.last_holder", l.gil.last_holder, f.Offset("struct _gil_runtime_state", "last_holder")},
      {"tstate.size", l.tstate.size, f.AlignedEnd(ts)},
      {"tstate.prev", l.tstate.prev, f.Offset(ts, "prev")},
      {"tstate.next", l.tstate.next, f.Offset(ts, "next")},
      {"tstate.interp", l.tstate.interp, f.Offset(ts, "interp")},
      {"tstate.thread_id", l.tstate.thread_id, f.Offset(ts, "thread_id")},
      {"tstate.native_thread_id", l.tstate.native_thread_id, f.Offset(ts, "native_thread_id")},
      {"tstate.cframe", l.tstate.cframe, f.Offset(ts, "cframe")},
      {"frame.size", l.frame.size, f.AlignedEnd(fr)},
      {"frame.previous", l.frame.previous, f.Offset(fr, "previous")},
      {"frame.executable", l.frame.executable, f.Offset(fr, "f_code")},
      {"frame.instr_ptr", l.frame.instr_ptr, f.Offset(fr, "prev_instr")},
      {"frame.owner", l.frame.owner, f.Offset(fr, "owner")},
      {"frame.localsplus", l.frame.localsplus, f.Offset(fr, "localsplus")},
      {"frame.stacktop", l.frame.stacktop, f.Offset(fr, "stacktop")},
      {"code.size", l.code.size, f.AlignedEnd(co)},
      {"code.filename", l.code.filename, f.Offset(co, "co_filename")},
      {"code.name", l.code.name, f.Offset(co, "co_name")},
      {"code.qualname", l.code.qualname, f.Offset(co, "co_qualname")},
      {"code.linetable", l.code.linetable, f.Offset(co, "co_linetable")},
      {"code.firstlineno", l.code.firstlineno, f.Offset(co, "co_firstlineno")},
      {"code.argcount", l.code.argcount, f.Offset(co, "co_argcount")},
      {"code.localsplusnames", l.code.localsplusnames, f.Offset(co, "co_localsplusnames")},
      {"code.localspluskinds", l.code.localspluskinds, f.Offset(co, "co_localspluskinds")},
      {"code.code_adaptive", l.code.code_adaptive, f.Offset(co, "co_code_adaptive")},
      {"code.firsttraceable", l.code.firsttraceable, f.Offset(co, "_co_firsttraceable")},
      {"object.ob_type", l.object.ob_type, f.Offset("PyObject", "ob_type")},
      {"object.ob_size", l.object.ob_size, f.Offset("PyVarObject", "ob_size")},
      {"type.tp_name", l.type.tp_name, f.Offset("PyTypeObject", "tp_name")},
      {"type.tp_flags", l.type.tp_flags, f.Offset("PyTypeObject", "tp_flags")},
      {"unicode.length", l.unicode.length, f.Offset("PyASCIIObject", "length")},
      {"unicode.state", l.unicode.state, f.Offset("PyASCIIObject", "state.2")},
      // sizeof(PyASCIIObject) and sizeof(PyCompactUnicodeObject), as the
      // first members of the next larger string structs.
      {"unicode.ascii_data", l.unicode.ascii_data,
       f.Get("PyCompactUnicodeObject", "_base").value_or(testing::Member{}).size},
      {"unicode.compact_data", l.unicode.compact_data,
       f.Get("PyUnicodeObject", "_base").value_or(testing::Member{}).size},
      // PyBytesObject, PyTupleObject, PyListObject start with a PyVarObject.
      {"bytes.ob_size", l.bytes.ob_size, f.Offset("PyVarObject", "ob_size")},
      {"bytes.ob_sval", l.bytes.ob_sval, f.Offset("PyBytesObject", "ob_sval")},
      {"tuple.ob_size", l.tuple.ob_size, f.Offset("PyVarObject", "ob_size")},
      {"tuple.ob_item", l.tuple.ob_item, f.Offset("PyTupleObject", "ob_item")},
      {"list.ob_size", l.list.ob_size, f.Offset("PyVarObject", "ob_size")},
      {"list.ob_item", l.list.ob_item, f.Offset("PyListObject", "ob_item")},
      {"dict.ma_used", l.dict.ma_used, f.Offset("PyDictObject", "ma_used")},
      {"dict.ma_keys", l.dict.ma_keys, f.Offset("PyDictObject", "ma_keys")},
      {"dict.ma_values", l.dict.ma_values, f.Offset("PyDictObject", "ma_values")},
      {"float.ob_fval", l.float_object.ob_fval, f.Offset("PyFloatObject", "ob_fval")},
  };
  if (minor == 11) {
    // 3.11: the one GIL is embedded in the runtime (ceval.gil).
    c.push_back({"runtime.gil + gil.locked", l.runtime.gil + l.gil.locked,
                 f.Offset(rt, "ceval.gil.locked")});
    c.push_back({"runtime.gil + gil.last_holder", l.runtime.gil + l.gil.last_holder,
                 f.Offset(rt, "ceval.gil.last_holder")});
    c.push_back({"runtime.gil", l.runtime.gil, f.Offset(rt, "ceval.gil.interval")});
    // PyLongObject is a PyVarObject with ob_digit.
    c.push_back({"long.ob_size", l.long_object.ob_size, f.Offset("PyVarObject", "ob_size")});
    c.push_back({"long.ob_digit", l.long_object.ob_digit, f.Offset("struct _longobject", "ob_digit")});
    // struct _PyCFrame { uint8_t use_tracing; current_frame; previous; } is 24 bytes.
    c.push_back({"tstate.root_cframe size (24: current_frame at 8)",
                 l.tstate.cframe_current_frame == 8 ? 24 : -1,
                 f.Get(ts, "root_cframe").value_or(testing::Member{}).size});
  } else {
    c.push_back({"interp.ceval_gil", l.interp.ceval_gil, f.Offset(is, "ceval.gil")});
    const int32_t long_value = f.Offset("struct _longobject", "long_value");
    c.push_back({"long.lv_tag", l.long_object.lv_tag,
                 long_value + f.Offset("struct _PyLongValue", "lv_tag")});
    c.push_back({"long.ob_digit", l.long_object.ob_digit,
                 long_value + f.Offset("struct _PyLongValue", "ob_digit")});
    // struct _PyCFrame { current_frame; previous; } is 16 bytes.
    c.push_back({"tstate.root_cframe size (16: current_frame at 0)",
                 l.tstate.cframe_current_frame == 0 ? 16 : -1,
                 f.Get(ts, "root_cframe").value_or(testing::Member{}).size});
  }
  return c;
}

class LayoutTablesTest : public ::testing::TestWithParam<std::pair<uint32_t, std::string>> {};

TEST_P(LayoutTablesTest, TableAgreesWithDebugInfo) {
  const auto& [hexversion, fixture] = GetParam();
  // A debug build's table ("3.11.2d") is this project's own test data.
  const bool own = fixture.back() == 'd';
  const std::string dir =
      own ? testing::RunfilePath("tests/data/layouts") : testing::FixtureLayoutsDir(kAnchor);
  if (dir.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kAnchor);
  auto facts = LayoutFacts::Load(dir + "/" + fixture + ".tsv");
  ASSERT_TRUE(facts.has_value()) << "cannot read " << dir << "/" << fixture << ".tsv";

  auto layout = LayoutFromTable(hexversion);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  ASSERT_TRUE(ValidateLayout(*layout).ok());
  const int minor = layout->version.minor();
  const std::vector<Check> checks = ChecksFor(*layout, *facts, minor);

  std::set<std::string> checked;
  for (const Check& check : checks) {
    EXPECT_EQ(check.actual, check.expected) << "Python " << fixture << ": " << check.field;
    checked.insert(check.field);
  }
  // Every field the table sets is checked (or has no fact to check against).
  for (const auto& [name, value] : AllFields(*layout)) {
    if (value == kAbsent) continue;
    EXPECT_TRUE(checked.count(name) || kNoFact.count(name))
        << "Python " << fixture << ": the table sets " << name << " = " << value
        << " but nothing checks it";
  }
  // Fields the table leaves absent must not exist in this version either.
  if (layout->tstate.current_frame == kAbsent) {
    EXPECT_EQ(facts->Offset("struct _ts", "current_frame"), -2);
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, LayoutTablesTest,
                         ::testing::Values(std::make_pair(0x030b02f0u, std::string("3.11.2")),
                                           std::make_pair(0x030b02f0u, std::string("3.11.2d")),
                                           std::make_pair(0x030c06f0u, std::string("3.12.6"))),
                         [](const auto& info) {
                           std::string name = info.param.second;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return "Python" + name;
                         });

TEST(LayoutTables, RefusesOtherVersionsAndFreeThreading) {
  EXPECT_FALSE(LayoutFromTable(0x030d00f0).ok());
  EXPECT_FALSE(LayoutFromTable(0x030500f0).ok());  // 3.5: older than every table
  EXPECT_FALSE(LayoutFromTable(0x030c06f0, /*free_threaded=*/true).ok());
}

}  // namespace
}  // namespace pyunwind

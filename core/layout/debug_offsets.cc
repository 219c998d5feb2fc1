// _Py_DebugOffsets (3.13+): a checked reader for the block. Which fields a
// minor version's block has, and the facts it does not carry, are that
// version's file (python313.cc ...); the field tables are checked in tests
// against the debug info of the fixture interpreters
// (../shared/fixtures/layouts) and the real blocks of their cores
// (tests/data/debug_offsets).
#include "core/layout/debug_offsets.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

using Names = std::vector<std::string_view>;

constexpr size_t kHeaderSize = 24;  // cookie, version, free_threaded
constexpr uint64_t kMaxStructSize = 1 << 22;  // as ValidateLayout: no struct we read nears 4 MiB
constexpr uint64_t kMaxGilStructSize = 1024;  // struct _gil_runtime_state is ~216 bytes

uint64_t LoadU64(const uint8_t* p) {
  uint64_t value;  // the targets are little-endian, like the host
  std::memcpy(&value, p, sizeof value);
  return value;
}

// Reads named fields of one block, checking each against the size of its
// struct; remembers the first problem as one sentence.
class BlockReader {
 public:
  BlockReader(const uint8_t* block, const Names& names, std::string what)
      : block_(block), names_(names), what_(std::move(what)) {}

  bool Has(std::string_view name) const { return Index(name).has_value(); }

  // The raw value of a field this minor's block has; nullopt otherwise.
  std::optional<uint64_t> Raw(std::string_view name) const {
    auto index = Index(name);
    if (!index) return std::nullopt;
    return LoadU64(block_ + kHeaderSize + 8 * *index);
  }

  // A struct size that must lie in [min, max].
  int32_t Size(std::string_view name, const char* struct_name, uint64_t min, uint64_t max) {
    auto value = Raw(name);
    if (!value) {
      Fail(fmt::format("it has no {}", name));
      return 0;
    }
    if (*value < min || *value > max) {
      Fail(fmt::format("{} = {} is not a plausible size for the {}", name, *value, struct_name));
      return 0;
    }
    return static_cast<int32_t>(*value);
  }

  // An offset whose `width` bytes must lie inside a struct of `limit` bytes.
  // Absent (kAbsent) when this minor's block has no such field.
  int32_t Offset(std::string_view name, uint32_t width, int32_t limit, const char* struct_name) {
    auto value = Raw(name);
    if (!value) return kAbsent;
    return Check(name, *value, width, limit, struct_name);
  }

  // A value checked the same way, computed from block fields.
  int32_t Check(std::string_view name, uint64_t value, uint32_t width, int32_t limit,
                const char* struct_name) {
    if (limit <= 0) return kAbsent;  // the size already failed
    if (value > static_cast<uint64_t>(limit) || value + width > static_cast<uint64_t>(limit)) {
      Fail(fmt::format("{} = {} lies outside the {}-byte {}", name, value, limit, struct_name));
      return kAbsent;
    }
    return static_cast<int32_t>(value);
  }

  void Fail(std::string problem) {
    if (error_.empty()) error_ = std::move(problem);
  }
  bool failed() const { return !error_.empty(); }
  Error error() const {
    return MakeError(
        fmt::format("the _Py_DebugOffsets block of {} is not valid: {}", what_, error_));
  }

 private:
  std::optional<size_t> Index(std::string_view name) const {
    for (size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) return i;
    }
    return std::nullopt;
  }

  const uint8_t* block_;
  const Names& names_;
  std::string what_;
  std::string error_;
};

}  // namespace

namespace {

// The file that reads a block of 3.`minor`: its own, or the newest for a
// newer version; null before 3.13.
const MinorVersion* BlockVersion(int minor) {
  const MinorVersion& newest = NewestMinorVersion();
  const MinorVersion* known = minor > newest.minor ? &newest : FindMinorVersion(minor);
  return known != nullptr && !known->debug_offsets_fields.empty() ? known : nullptr;
}

}  // namespace

const std::vector<std::string_view>& DebugOffsetsFieldNames(int minor) {
  static const Names kNone;
  const MinorVersion* known = BlockVersion(minor);
  return known != nullptr ? known->debug_offsets_fields : kNone;
}

bool DebugOffsetsVersionIsNewerThanKnown(uint32_t hexversion) {
  PythonVersion version{hexversion};
  return version.major() == 3 && version.minor() > NewestMinorVersion().minor;
}

Result<Layout> LayoutFromDebugOffsets(const uint8_t* block, size_t size) {
  if (block == nullptr || size < kHeaderSize) {
    return MakeError(fmt::format("the _Py_DebugOffsets block is truncated: {} bytes, the header alone needs {}",
                                 block == nullptr ? 0 : size, kHeaderSize));
  }
  if (std::memcmp(block, kDebugOffsetsCookie, sizeof kDebugOffsetsCookie - 1) != 0) {
    return MakeError("the memory does not start with the _Py_DebugOffsets cookie \"xdebugpy\"");
  }
  const uint64_t raw_version = LoadU64(block + 8);
  const uint64_t free_threaded = LoadU64(block + 16);
  const PythonVersion version{static_cast<uint32_t>(raw_version)};
  const int level = version.release_level();
  if (raw_version >> 32 != 0 || version.major() != 3 ||
      (level != 0xA && level != 0xB && level != 0xC && level != 0xF)) {
    return MakeError(fmt::format(
        "the _Py_DebugOffsets block holds version {:#x}, which is no CPython 3 release", raw_version));
  }
  const MinorVersion* known = BlockVersion(version.minor());
  if (known == nullptr) {
    return MakeError(fmt::format(
        "the _Py_DebugOffsets block claims Python {}, but only 3.13 and newer have one: it is garbage",
        version.ToString()));
  }
  if (free_threaded > 1) {
    return MakeError(fmt::format(
        "the _Py_DebugOffsets block of Python {} has free_threaded = {}, not 0 or 1",
        version.ToString(), free_threaded));
  }
  const Names& names = known->debug_offsets_fields;
  const size_t needed = kHeaderSize + 8 * names.size();
  const int table_minor = known->minor;
  if (size < needed) {
    return MakeError(fmt::format(
        "the _Py_DebugOffsets block of Python {} is truncated: {} bytes, the 3.{} layout needs {}",
        version.ToString(), size, table_minor, needed));
  }

  Layout l;
  l.version = version;
  l.free_threaded = free_threaded == 1;
  l.source = fmt::format("_Py_DebugOffsets {}", version.MinorString());
  if (DebugOffsetsVersionIsNewerThanKnown(version.hexversion)) {
    l.warning = fmt::format(
        "Python {} is newer than the newest _Py_DebugOffsets layout pyunwind knows (3.{}); "
        "its offsets are read with the 3.{} layout",
        version.ToString(), known->minor, known->minor);
  }
  const bool ft = l.free_threaded;
  const std::string what = fmt::format("Python {}{}", version.ToString(), ft ? " (free-threaded)" : "");
  BlockReader r(block, names, what);

  // Runtime and interpreter.
  const int32_t runtime_size = r.Size("runtime_state.size", "runtime state", 64, kMaxStructSize);
  l.runtime.size = runtime_size;
  l.runtime.interpreters_head = r.Offset("runtime_state.interpreters_head", 8, runtime_size, "runtime state");

  const char* kInterp = "interpreter state";
  auto& in = l.interp;
  in.size = r.Size("interpreter_state.size", kInterp, 64, kMaxStructSize);
  in.id = r.Offset("interpreter_state.id", 8, in.size, kInterp);
  in.next = r.Offset("interpreter_state.next", 8, in.size, kInterp);
  in.threads_head = r.Offset("interpreter_state.threads_head", 8, in.size, kInterp);
  in.threads_main = r.Offset("interpreter_state.threads_main", 8, in.size, kInterp);
  in.sysdict = r.Offset("interpreter_state.sysdict", 8, in.size, kInterp);
  in.builtins = r.Offset("interpreter_state.builtins", 8, in.size, kInterp);
  in.modules = r.Offset("interpreter_state.imports_modules", 8, in.size, kInterp);
  in.ceval_gil = r.Offset("interpreter_state.ceval_gil", 8, in.size, kInterp);
  const int32_t gc = r.Offset("interpreter_state.gc", 8, in.size, kInterp);
  const int32_t gc_size = r.Size("gc.size", "GC state", 8, 1 << 16);
  const int32_t collecting = r.Offset("gc.collecting", 4, gc_size, "GC state");
  if (gc != kAbsent && collecting != kAbsent) {
    in.gc_collecting = r.Check("interpreter_state.gc + gc.collecting", uint64_t(gc) + collecting, 4,
                               in.size, kInterp);
  }

  // GIL: locked and holder are offsets inside the interpreter state (of its
  // own embedded _gil); the Layout wants them inside struct
  // _gil_runtime_state, which ceval_gil points to. `enabled` (free-threaded
  // builds only; 0 otherwise, and also 0 where it is the first member) is
  // already relative to the GIL struct.
  const int32_t gil = r.Offset("interpreter_state.gil_runtime_state", 8, in.size, kInterp);
  const int32_t locked = r.Offset("interpreter_state.gil_runtime_state_locked", 4, in.size, kInterp);
  const int32_t holder = r.Offset("interpreter_state.gil_runtime_state_holder", 8, in.size, kInterp);
  if (gil != kAbsent && locked != kAbsent && holder != kAbsent) {
    if (locked < gil || holder < gil || locked - gil + 4 > int32_t(kMaxGilStructSize) ||
        holder - gil + 8 > int32_t(kMaxGilStructSize)) {
      r.Fail(fmt::format("the GIL fields (locked at {}, holder at {}) do not lie in the GIL at {}",
                         locked, holder, gil));
    } else {
      l.gil.locked = locked - gil;
      l.gil.last_holder = holder - gil;
    }
  }
  if (ft) {
    in.gil_enabled = r.Offset("interpreter_state.gil_runtime_state_enabled", 4,
                              int32_t(kMaxGilStructSize), "GIL state");
  }

  // Thread state.
  const char* kTstate = "thread state";
  auto& ts = l.tstate;
  ts.size = r.Size("thread_state.size", kTstate, 64, 1 << 16);
  ts.prev = r.Offset("thread_state.prev", 8, ts.size, kTstate);
  ts.next = r.Offset("thread_state.next", 8, ts.size, kTstate);
  ts.interp = r.Offset("thread_state.interp", 8, ts.size, kTstate);
  ts.current_frame = r.Offset("thread_state.current_frame", 8, ts.size, kTstate);
  ts.thread_id = r.Offset("thread_state.thread_id", 8, ts.size, kTstate);
  ts.native_thread_id = r.Offset("thread_state.native_thread_id", 8, ts.size, kTstate);
  r.Offset("thread_state.status", 4, ts.size, kTstate);     // checked; the Layout has no field yet
  r.Offset("thread_state.holds_gil", 4, ts.size, kTstate);  // 3.15; likewise
  // 3.15 only: the exception being raised, the thread's own handled-exception
  // item (the innermost one is exc_info, which the block does not give) and
  // whether the thread waits for the GIL.
  ts.current_exception = r.Offset("thread_state.current_exception", 8, ts.size, kTstate);
  ts.exc_state = r.Offset("thread_state.exc_state", 8, ts.size, kTstate);
  ts.gil_requested = r.Offset("thread_state.gil_requested", 4, ts.size, kTstate);
  if (r.Has("err_stackitem.exc_value")) {
    l.err_stackitem.exc_value = r.Check("err_stackitem.exc_value", *r.Raw("err_stackitem.exc_value"),
                                        8, 64, "exception stack item");
  }

  // Interpreter frame.
  const char* kFrame = "interpreter frame";
  auto& f = l.frame;
  f.size = r.Size("interpreter_frame.size", kFrame, 48, 1024);
  f.previous = r.Offset("interpreter_frame.previous", 8, f.size, kFrame);
  f.executable = r.Offset("interpreter_frame.executable", 8, f.size, kFrame);
  f.instr_ptr = r.Offset("interpreter_frame.instr_ptr", 8, f.size, kFrame);
  f.localsplus = r.Offset("interpreter_frame.localsplus", 8, f.size, kFrame);
  f.owner = r.Offset("interpreter_frame.owner", 1, f.size, kFrame);
  f.stackpointer = r.Offset("interpreter_frame.stackpointer", 8, f.size, kFrame);  // 3.14+
  if (ft) f.tlbc_index = r.Offset("interpreter_frame.tlbc_index", 4, f.size, kFrame);

  // Code object.
  const char* kCode = "code object";
  auto& c = l.code;
  c.size = r.Size("code_object.size", kCode, 64, 4096);
  c.filename = r.Offset("code_object.filename", 8, c.size, kCode);
  c.name = r.Offset("code_object.name", 8, c.size, kCode);
  c.qualname = r.Offset("code_object.qualname", 8, c.size, kCode);
  c.linetable = r.Offset("code_object.linetable", 8, c.size, kCode);
  c.firstlineno = r.Offset("code_object.firstlineno", 4, c.size, kCode);
  c.argcount = r.Offset("code_object.argcount", 4, c.size, kCode);
  c.localsplusnames = r.Offset("code_object.localsplusnames", 8, c.size, kCode);
  c.localspluskinds = r.Offset("code_object.localspluskinds", 8, c.size, kCode);
  c.code_adaptive = r.Offset("code_object.co_code_adaptive", 1, c.size, kCode);
  if (ft) c.tlbc = r.Offset("code_object.co_tlbc", 8, c.size, kCode);

  // Objects.
  const int32_t object_size = r.Size("pyobject.size", "object header", 16, 64);
  l.object.ob_type = r.Offset("pyobject.ob_type", 8, object_size, "object header");
  const int32_t type_size = r.Size("type_object.size", "type object", 64, 4096);
  l.type.size = type_size;
  l.type.tp_name = r.Offset("type_object.tp_name", 8, type_size, "type object");
  l.type.tp_flags = r.Offset("type_object.tp_flags", 8, type_size, "type object");
  l.type.tp_basicsize = r.Offset("type_object.tp_basicsize", 8, type_size, "type object");  // 3.15+
  l.type.tp_dictoffset = r.Offset("type_object.tp_dictoffset", 8, type_size, "type object");
  if (r.Has("heap_type_object.size")) {  // 3.15+
    l.type.heap_size = r.Size("heap_type_object.size", "heap type", 64, 4096);
    l.type.ht_cached_keys =
        r.Offset("heap_type_object.ht_cached_keys", 8, l.type.heap_size, "heap type");
  }

  const int32_t tuple_size = r.Size("tuple_object.size", "tuple object", 16, 1024);
  l.tuple.ob_size = r.Offset("tuple_object.ob_size", 8, tuple_size, "tuple object");
  l.tuple.ob_item = r.Offset("tuple_object.ob_item", 8, tuple_size, "tuple object");
  l.object.ob_size = l.tuple.ob_size;  // PyVarObject.ob_size, as every var object has it
  const int32_t list_size = r.Size("list_object.size", "list object", 16, 1024);
  l.list.ob_size = r.Offset("list_object.ob_size", 8, list_size, "list object");
  l.list.ob_item = r.Offset("list_object.ob_item", 8, list_size, "list object");
  const int32_t dict_size = r.Size("dict_object.size", "dict object", 16, 1024);
  l.dict.ma_keys = r.Offset("dict_object.ma_keys", 8, dict_size, "dict object");
  l.dict.ma_values = r.Offset("dict_object.ma_values", 8, dict_size, "dict object");
  if (r.Has("set_object.size")) {  // 3.14+
    const int32_t set_size = r.Size("set_object.size", "set object", 16, 1024);
    l.set.mask = r.Offset("set_object.mask", 8, set_size, "set object");
    l.set.table = r.Offset("set_object.table", 8, set_size, "set object");
  }
  const int32_t float_size = r.Size("float_object.size", "float object", 16, 1024);
  l.float_object.ob_fval = r.Offset("float_object.ob_fval", 8, float_size, "float object");
  const int32_t long_size = r.Size("long_object.size", "int object", 16, 1024);
  l.long_object.lv_tag = r.Offset("long_object.lv_tag", 8, long_size, "int object");
  l.long_object.ob_digit = r.Offset("long_object.ob_digit", 4, long_size, "int object");
  const int32_t bytes_size = r.Size("bytes_object.size", "bytes object", 16, 1024);
  l.bytes.ob_size = r.Offset("bytes_object.ob_size", 8, bytes_size, "bytes object");
  l.bytes.ob_sval = r.Offset("bytes_object.ob_sval", 1, bytes_size, "bytes object");

  const char* kStr = "string object";
  auto& u = l.unicode;
  const int32_t str_size = r.Size("unicode_object.size", kStr, 16, 1024);
  u.size = str_size;
  u.length = r.Offset("unicode_object.length", 8, str_size, kStr);
  u.state = r.Offset("unicode_object.state", 4, str_size, kStr);
  u.ascii_data = r.Offset("unicode_object.asciiobject_size", 0, str_size, kStr);
  u.compact_data = r.Offset("unicode_object.compactunicodeobject_size", 0, str_size, kStr);  // 3.15+
  if (u.state != kAbsent && u.ascii_data != kAbsent && u.state + 4 > u.ascii_data) {
    r.Fail(fmt::format("the string state at {} does not fit before the text at {}", u.state,
                       u.ascii_data));
  }

  if (r.Has("gen_object.size")) {  // 3.14+
    const char* kGen = "generator object";
    const int32_t gen_size = r.Size("gen_object.size", kGen, 32, 4096);
    l.gen.frame_state = r.Offset("gen_object.gi_frame_state", 1, gen_size, kGen);
    l.gen.iframe = r.Offset("gen_object.gi_iframe", 8, gen_size, kGen);
  }

  if (r.failed()) return r.error();
  known->add_facts(l);
  PYU_RETURN_IF_ERROR(ValidateLayout(l));
  return l;
}

}  // namespace pyunwind

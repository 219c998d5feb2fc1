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

// One offset of a block's section and the Layout field it fills (null:
// checked only).
struct Field {
  std::string_view name;  // after the section's prefix
  uint32_t width;         // bytes that must fit in the struct at that offset
  int32_t* out;
};

// One struct of the block: its size (within [min_size, max_size]) and fields.
struct Section {
  std::string_view prefix;  // "thread_state"
  const char* what;         // "thread state", for errors
  uint64_t min_size, max_size;
  int32_t* size;
  bool optional;  // absent in some minors' blocks
  std::vector<Field> fields;
};

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

  // A whole section; fields this minor's block lacks are left absent.
  void Read(const Section& section) {
    const std::string prefix = std::string(section.prefix) + ".";
    if (section.optional && !Has(prefix + "size")) return;
    *section.size = Size(prefix + "size", section.what, section.min_size, section.max_size);
    for (const Field& field : section.fields) {
      const int32_t offset =
          Offset(prefix + std::string(field.name), field.width, *section.size, section.what);
      if (field.out != nullptr) *field.out = offset;
    }
  }

  void Fail(std::string problem) {
    if (error_.empty()) error_ = std::move(problem);
  }
  bool failed() const { return !error_.empty(); }
  Error error() const {
    return MakeError(
        ErrorKind::kRefusedLayout,
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
    return MakeError(ErrorKind::kRefusedLayout,
                     fmt::format("the _Py_DebugOffsets block is truncated: {} bytes, the header "
                                 "alone needs {}",
                                 block == nullptr ? 0 : size, kHeaderSize));
  }
  if (std::memcmp(block, kDebugOffsetsCookie, sizeof kDebugOffsetsCookie - 1) != 0) {
    return MakeError(ErrorKind::kRefusedLayout,
                     "the memory does not start with the _Py_DebugOffsets cookie \"xdebugpy\"");
  }
  const uint64_t raw_version = LoadU64(block + 8);
  const uint64_t free_threaded = LoadU64(block + 16);
  const PythonVersion version{static_cast<uint32_t>(raw_version)};
  const int level = version.release_level();
  if (raw_version >> 32 != 0 || version.major() != 3 ||
      (level != 0xA && level != 0xB && level != 0xC && level != 0xF)) {
    return MakeError(ErrorKind::kRefusedLayout, fmt::format(
        "the _Py_DebugOffsets block holds version {:#x}, which is no CPython 3 release", raw_version));
  }
  const MinorVersion* known = BlockVersion(version.minor());
  if (known == nullptr) {
    const std::vector<const MinorVersion*> versions = KnownMinorVersions();  // oldest first
    const auto first = std::find_if(versions.begin(), versions.end(), [](const MinorVersion* v) {
      return !v->debug_offsets_fields.empty();
    });
    return MakeError(ErrorKind::kRefusedLayout, fmt::format(
        "the _Py_DebugOffsets block claims Python {}, but only 3.{} and newer have one: it is garbage",
        version.ToString(), (first != versions.end() ? *first : &NewestMinorVersion())->minor));
  }
  if (free_threaded > 1) {
    return MakeError(ErrorKind::kRefusedLayout, fmt::format(
        "the _Py_DebugOffsets block of Python {} has free_threaded = {}, not 0 or 1",
        version.ToString(), free_threaded));
  }
  const Names& names = known->debug_offsets_fields;
  const size_t needed = kHeaderSize + 8 * names.size();
  const int table_minor = known->minor;
  if (size < needed) {
    return MakeError(ErrorKind::kRefusedLayout, fmt::format(
        "the _Py_DebugOffsets block of Python {} is truncated: {} bytes, the 3.{} layout needs {}",
        version.ToString(), size, table_minor, needed));
  }

  Layout l;
  l.version = version;
  l.free_threaded = free_threaded == 1;
  l.source = LayoutSource::kDebugOffsets;
  if (DebugOffsetsVersionIsNewerThanKnown(version.hexversion)) {
    l.warning = fmt::format(
        "Python {} is newer than the newest _Py_DebugOffsets layout pyunwind knows (3.{}); "
        "its offsets are read with the 3.{} layout",
        version.ToString(), known->minor, known->minor);
  }
  const bool ft = l.free_threaded;
  const std::string what = fmt::format("Python {}{}", version.ToString(), ft ? " (free-threaded)" : "");
  BlockReader r(block, names, what);

  // A minor newer than the newest known is read with that one's field list
  // only when the block still matches it where the value is a constant: a
  // field added or removed anywhere before them shifts these, and would
  // otherwise give plausible garbage.
  if (DebugOffsetsVersionIsNewerThanKnown(version.hexversion)) {
    struct Canary {
      const char* field;
      uint64_t value;
    };
    for (const Canary& canary : {Canary{"llist_node.next", 0}, Canary{"llist_node.prev", 8},
                                 Canary{"debugger_support.debugger_script_path_size", 512}}) {
      const auto value = r.Raw(canary.field);
      if (!value || *value != canary.value) {
        return MakeError(ErrorKind::kUnsupportedVersion, fmt::format(
            "Python {} is newer than 3.{}, and its _Py_DebugOffsets block does not match the 3.{} "
            "layout ({} reads {}, not {}): pyunwind cannot read this version",
            version.ToString(), known->minor, known->minor, canary.field,
            value ? std::to_string(*value) : "nothing", canary.value));
      }
    }
  }

  // The block's sections: each struct's size, then the offsets inside it
  // that the Layout keeps (null: checked only). Sections a minor's block
  // lacks are skipped where `optional`.
  auto& in = l.interp;
  auto& ts = l.tstate;
  auto& f = l.frame;
  auto& c = l.code;
  auto& u = l.unicode;
  int32_t object_size = 0, tuple_size = 0, list_size = 0, dict_size = 0, set_size = 0,
          float_size = 0, long_size = 0, bytes_size = 0, gen_size = 0, gc_size = 0;
  int32_t gc = kAbsent, collecting = kAbsent, gil = kAbsent, locked = kAbsent, holder = kAbsent;
  const Section sections[] = {
      {"runtime_state", "runtime state", 64, kMaxStructSize, &l.runtime.size, false,
       {{"interpreters_head", 8, &l.runtime.interpreters_head}}},
      {"interpreter_state", "interpreter state", 64, kMaxStructSize, &in.size, false,
       {{"id", 8, &in.id}, {"next", 8, &in.next}, {"threads_head", 8, &in.threads_head},
        {"threads_main", 8, &in.threads_main}, {"sysdict", 8, &in.sysdict},
        {"builtins", 8, &in.builtins}, {"imports_modules", 8, &in.modules},
        {"ceval_gil", 8, &in.ceval_gil}, {"gc", 8, &gc}, {"gil_runtime_state", 8, &gil},
        {"gil_runtime_state_locked", 4, &locked}, {"gil_runtime_state_holder", 8, &holder}}},
      {"gc", "GC state", 8, 1 << 16, &gc_size, false, {{"collecting", 4, &collecting}}},
      {"thread_state", "thread state", 64, 1 << 16, &ts.size, false,
       {{"prev", 8, &ts.prev}, {"next", 8, &ts.next}, {"interp", 8, &ts.interp},
        {"current_frame", 8, &ts.current_frame}, {"thread_id", 8, &ts.thread_id},
        {"native_thread_id", 8, &ts.native_thread_id}, {"status", 4, nullptr},
        // 3.15: the exception being raised, the thread's own handled-exception
        // item (the innermost, exc_info, is not given) and whether it waits for the GIL.
        {"holds_gil", 4, nullptr}, {"current_exception", 8, &ts.current_exception},
        {"exc_state", 8, &ts.exc_state}, {"gil_requested", 4, &ts.gil_requested}}},
      {"interpreter_frame", "interpreter frame", 48, 1024, &f.size, false,
       {{"previous", 8, &f.previous}, {"executable", 8, &f.executable},
        {"instr_ptr", 8, &f.instr_ptr}, {"localsplus", 8, &f.localsplus}, {"owner", 1, &f.owner},
        {"stackpointer", 8, &f.stackpointer}, {"tlbc_index", 4, ft ? &f.tlbc_index : nullptr}}},
      {"code_object", "code object", 64, 4096, &c.size, false,
       {{"filename", 8, &c.filename}, {"name", 8, &c.name}, {"qualname", 8, &c.qualname},
        {"linetable", 8, &c.linetable}, {"firstlineno", 4, &c.firstlineno},
        {"argcount", 4, &c.argcount}, {"localsplusnames", 8, &c.localsplusnames},
        {"localspluskinds", 8, &c.localspluskinds}, {"co_code_adaptive", 1, &c.code_adaptive},
        {"co_tlbc", 8, ft ? &c.tlbc : nullptr}}},
      {"pyobject", "object header", 16, 64, &object_size, false, {{"ob_type", 8, &l.object.ob_type}}},
      {"type_object", "type object", 64, 4096, &l.type.size, false,
       {{"tp_name", 8, &l.type.tp_name}, {"tp_flags", 8, &l.type.tp_flags},
        {"tp_basicsize", 8, &l.type.tp_basicsize}, {"tp_dictoffset", 8, &l.type.tp_dictoffset}}},
      {"heap_type_object", "heap type", 64, 4096, &l.type.heap_size, true,
       {{"ht_cached_keys", 8, &l.type.ht_cached_keys}}},
      {"tuple_object", "tuple object", 16, 1024, &tuple_size, false,
       {{"ob_size", 8, &l.tuple.ob_size}, {"ob_item", 8, &l.tuple.ob_item}}},
      {"list_object", "list object", 16, 1024, &list_size, false,
       {{"ob_size", 8, &l.list.ob_size}, {"ob_item", 8, &l.list.ob_item}}},
      {"dict_object", "dict object", 16, 1024, &dict_size, false,
       {{"ma_keys", 8, &l.dict.ma_keys}, {"ma_values", 8, &l.dict.ma_values}}},
      {"set_object", "set object", 16, 1024, &set_size, true,
       {{"mask", 8, &l.set.mask}, {"table", 8, &l.set.table}}},
      {"float_object", "float object", 16, 1024, &float_size, false,
       {{"ob_fval", 8, &l.float_object.ob_fval}}},
      {"long_object", "int object", 16, 1024, &long_size, false,
       {{"lv_tag", 8, &l.long_object.lv_tag}, {"ob_digit", 4, &l.long_object.ob_digit}}},
      {"bytes_object", "bytes object", 16, 1024, &bytes_size, false,
       {{"ob_size", 8, &l.bytes.ob_size}, {"ob_sval", 1, &l.bytes.ob_sval}}},
      {"unicode_object", "string object", 16, 1024, &u.size, false,
       {{"length", 8, &u.length}, {"state", 4, &u.state}, {"asciiobject_size", 0, &u.ascii_data},
        {"compactunicodeobject_size", 0, &u.compact_data}}},
      {"gen_object", "generator object", 32, 4096, &gen_size, true,
       {{"gi_frame_state", 1, &l.gen.frame_state}, {"gi_iframe", 8, &l.gen.iframe}}},
  };
  for (const Section& section : sections) r.Read(section);
  l.object.ob_size = l.tuple.ob_size;  // PyVarObject.ob_size, as every var object has it

  in.gc = gc;  // checked against the interpreter state with its section
  if (gc != kAbsent && collecting != kAbsent) {
    in.gc_collecting = r.Check("interpreter_state.gc + gc.collecting", uint64_t(gc) + collecting, 4,
                               in.size, "interpreter state");
  }
  // GIL: locked and holder are offsets inside the interpreter state (of its
  // own embedded _gil); the Layout wants them inside struct
  // _gil_runtime_state, which ceval_gil points to. `enabled` (free-threaded
  // builds only; 0 otherwise, and also 0 where it is the first member) is
  // already relative to the GIL struct.
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
  if (r.Has("err_stackitem.exc_value")) {  // 3.15: a section without a size
    l.err_stackitem.exc_value = r.Check("err_stackitem.exc_value", *r.Raw("err_stackitem.exc_value"),
                                        8, 64, "exception stack item");
  }
  if (u.state != kAbsent && u.ascii_data != kAbsent && u.state + 4 > u.ascii_data) {
    r.Fail(fmt::format("the string state at {} does not fit before the text at {}", u.state,
                       u.ascii_data));
  }

  if (r.failed()) return r.error();
  known->add_facts(l);
  PYU_RETURN_IF_ERROR(ValidateLayout(l));
  return l;
}

}  // namespace pyunwind

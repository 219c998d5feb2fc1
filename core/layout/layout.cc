#include <fmt/format.h>

#include "core/layout/layout.h"

#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

constexpr int32_t kMaxStructSize = 1 << 22;  // no CPython struct we read is near 4 MiB

// A field must lie inside its struct (or be absent).
bool FieldFits(int32_t offset, int32_t width, int32_t struct_size) {
  return offset == kAbsent || (offset >= 0 && offset + width <= struct_size);
}

}  // namespace

Result<Layout> LayoutFromTable(uint32_t hexversion, bool free_threaded) {
  const PythonVersion version{hexversion};
  if (free_threaded) {
    return MakeError(ErrorKind::kUnsupportedVersion,
                     fmt::format("Python {} has no free-threaded build", version.ToString()));
  }
  const MinorVersion* known = FindVersionFile(version);
  if (known == nullptr || !known->debug_offsets_fields.empty()) {
    return MakeError(ErrorKind::kUnsupportedVersion,
                     fmt::format("no layout table for Python {}", version.ToString()));
  }
  Layout layout;
  layout.version = version;
  known->add_facts(layout);
  return layout;
}

std::string DescribeLayoutSource(const Layout& l) {
  switch (l.source) {
    case LayoutSource::kTable: return "table " + l.version.MinorString();
    case LayoutSource::kDebugOffsets: return "_Py_DebugOffsets " + l.version.MinorString();
  }
  return "?";
}

Status ValidateLayout(const Layout& l) {
  auto refuse = [&](std::string_view what) -> Status {
    return MakeError(ErrorKind::kRefusedLayout,
                     fmt::format("the layout of Python {} ({}) does not validate: {}",
                                 l.version.ToString(), DescribeLayoutSource(l), what));
  };
  if (!l.version.AtLeast(3, OldestMinorVersion().minor) && FindVersionFile(l.version) == nullptr) {
    return refuse("a version pyunwind does not read (it reads " + KnownMinorRange() + ")");
  }
  struct Check {
    const char* name;
    int32_t size;
    std::initializer_list<int32_t> fields;
  };
  const Check checks[] = {
      {"interpreter state", l.interp.size,
       {l.interp.next, l.interp.id, l.interp.threads_head, l.interp.threads_main, l.interp.sysdict,
        l.interp.modules, l.interp.ceval_gil, l.interp.runtime}},
      {"thread state", l.tstate.size,
       {l.tstate.prev, l.tstate.next, l.tstate.interp, l.tstate.thread_id,
        l.tstate.native_thread_id, l.tstate.current_frame, l.tstate.cframe, l.tstate.dict,
        l.tstate.root_cframe}},
      {"interpreter frame", l.frame.size,
       {l.frame.previous, l.frame.executable, l.frame.instr_ptr, l.frame.tlbc_index,
        l.frame.lasti}},
      {"code object", l.code.size,
       {l.code.filename, l.code.name, l.code.qualname, l.code.linetable, l.code.localsplusnames,
        l.code.localspluskinds, l.code.tlbc, l.code.code, l.code.varnames, l.code.cellvars,
        l.code.freevars}},
  };
  for (const Check& check : checks) {
    if (check.size <= 0 || check.size > kMaxStructSize) {
      return refuse(fmt::format("{} size {} is not plausible", check.name, check.size));
    }
    for (int32_t field : check.fields) {
      if (!FieldFits(field, 8, check.size)) {
        return refuse(fmt::format("a {} field at offset {} lies outside its {} bytes", check.name,
                                  field, check.size));
      }
    }
  }
  // Fields the walk cannot do without.
  if (l.runtime.interpreters_head == kAbsent || l.interp.threads_head == kAbsent ||
      l.tstate.next == kAbsent || l.frame.previous == kAbsent ||
      l.frame.executable == kAbsent || l.code.filename == kAbsent ||
      l.code.linetable == kAbsent ||
      l.code.bytes_per_unit < 1 || l.code.bytes_per_unit > 2 ||
      (UsesFrameObjects(l) ? l.code.code == kAbsent || l.frame.lasti == kAbsent
                           : l.code.code_adaptive == kAbsent) ||
      (l.tstate.current_frame == kAbsent && l.tstate.cframe == kAbsent)) {
    return refuse("a field the unwinder needs is missing");
  }
  if (!FieldFits(l.frame.owner, 1, l.frame.size) ||
      !FieldFits(l.code.firstlineno, 4, l.code.size) ||
      !FieldFits(l.code.code_adaptive, 0, l.code.size) ||
      !FieldFits(l.code.firsttraceable, 4, l.code.size)) {
    return refuse("a frame or code field lies outside its struct");
  }
  // Fields that facts place relative to ones the target gave, where it also
  // gave the size of their struct.
  const Check stated[] = {
      {"runtime state", l.runtime.size, {l.runtime.interpreters_main}},
      {"type object", l.type.size, {l.type.tp_basicsize, l.type.tp_dictoffset, l.type.tp_base}},
      {"heap type", l.type.heap_size, {l.type.ht_cached_keys}},
  };
  for (const Check& check : stated) {
    for (int32_t field : check.fields) {
      if (check.size != 0 && !FieldFits(field, 8, check.size)) {
        return refuse(fmt::format("a {} field at offset {} lies outside its {} bytes", check.name,
                                  field, check.size));
      }
    }
  }
  if (l.unicode.size != 0 && !FieldFits(l.unicode.compact_data, 0, l.unicode.size)) {
    return refuse("the string object layout is not plausible");
  }
  if (l.unicode.legacy_str != kAbsent) {  // 2.7's PyUnicodeObject
    if (l.unicode.legacy_unit_bytes != 2 && l.unicode.legacy_unit_bytes != 4) {
      return refuse("the unicode object layout is not plausible");
    }
  } else if (l.unicode.state == kAbsent || l.unicode.ascii_data <= 0 || l.unicode.ascii_data > 256 ||
      l.unicode.compact_data < l.unicode.ascii_data || l.unicode.compact_data > 256 ||
      l.unicode.kind_shift > 24) {
    return refuse("the string object layout is not plausible");
  }
  return Ok{};
}

}  // namespace pyunwind

#include "core/walk/code_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/base/address.h"
#include "core/walk/legacy_line_tables.h"

namespace pyunwind {
namespace {

template <typename T>
T FieldAt(const std::vector<uint8_t>& raw, int32_t offset) {
  T value{};
  if (offset >= 0 && offset + sizeof(T) <= raw.size()) std::memcpy(&value, &raw[offset], sizeof(T));
  return value;
}

}  // namespace

const std::shared_ptr<const LineTable>& NoLineTable() {
  static const std::shared_ptr<const LineTable> none = std::make_shared<const LineTable>();
  return none;
}

Result<const CodeInfo*> CodeCache::Get(uint64_t address) {
  auto found = cache_.find(address);
  if (found != cache_.end()) return static_cast<const CodeInfo*>(found->second.get());
  PYU_ASSIGN_OR_RETURN(CodeInfo info, Read(address));
  if (cache_.size() >= kMaxCodeObjectsCached) {
    cache_.clear();
    tables_.clear();
  }
  auto& slot = cache_[address];
  slot = std::make_unique<CodeInfo>(std::move(info));
  return static_cast<const CodeInfo*>(slot.get());
}

Result<uint64_t> CodeCache::BytecodeFor(const CodeInfo& code, int32_t tlbc_index) {
  if (tlbc_index <= 0 || code.tlbc_array == 0) return code.bytecode_address;
  // _PyCodeArray: Py_ssize_t size, then `size` pointers.
  RemoteMemory& memory = objects_.memory();
  auto size = memory.ReadValue<int64_t>(code.tlbc_array);
  if (!size || tlbc_index >= *size || *size > (1 << 20)) {
    return MakeError(fmt::format("thread-local bytecode index {} is out of range", tlbc_index));
  }
  auto entry = memory.ReadPointer(code.tlbc_array + 8 + 8 * static_cast<uint64_t>(tlbc_index));
  if (!entry || *entry == 0) return UnreadableMemory("cannot read a thread's copy of the bytecode");
  return *entry;
}

Status CodeCache::CheckCodeType(uint64_t address) {
  auto type_of = objects_.TypeOf(address);
  if (!type_of.ok()) {
    return UnreadableMemory(fmt::format("cannot read the code object at {:#x}", address));
  }
  const uint64_t type = *type_of;
  if (type == code_type_) return Ok{};
  // By name where the core holds it; else by PyCode_Type's tp_basicsize,
  // which is offsetof(PyCodeObject, co_code_adaptive) in every version (the
  // type object itself is writable data, in every core).
  const Layout& l = objects_.layout();
  auto name = objects_.TypeNameOfType(type);
  bool is_code = false;
  if (name.ok()) {
    is_code = *name == "code";
  } else if (l.type.tp_basicsize != kAbsent) {
    auto basicsize = objects_.memory().ReadValue<int64_t>(type + l.type.tp_basicsize);
    const int32_t fixed_part = UsesFrameObjects(l) ? l.code.size : l.code.code_adaptive;
    is_code = basicsize && *basicsize == fixed_part;
  }
  if (!is_code) {
    return MakeError(fmt::format("the object at {:#x} is not a code object", address));
  }
  code_type_ = type;
  return Ok{};
}

Result<CodeInfo> CodeCache::Read(uint64_t address) {
  const Layout::Code& c = objects_.layout().code;
  if (address == 0 || address % 8 != 0) {
    return MakeError(fmt::format("bad code object pointer {:#x}", address));
  }
  WorkBudget& budget = objects_.memory().budget();
  if (!budget.Spend(Work::kCodeObjects, 1)) return budget.StopError();
  PYU_RETURN_IF_ERROR(CheckCodeType(address));
  // The whole fixed part in one read.
  const bool frame_objects = UsesFrameObjects(objects_.layout());
  std::vector<uint8_t> raw(frame_objects ? c.size : c.code_adaptive);
  if (!objects_.memory().Read(address, raw.data(), raw.size())) {
    return UnreadableMemory(fmt::format("cannot read the code object at {:#x}", address));
  }
  CodeInfo info;
  CodeNames names;
  PYU_ASSIGN_OR_RETURN(names.filename, objects_.ReadString(FieldAt<uint64_t>(raw, c.filename)));
  PYU_ASSIGN_OR_RETURN(names.name, objects_.ReadString(FieldAt<uint64_t>(raw, c.name)));
  if (c.qualname != kAbsent) {
    PYU_ASSIGN_OR_RETURN(names.qualname, objects_.ReadString(FieldAt<uint64_t>(raw, c.qualname)));
  } else {
    names.qualname = names.name;
  }
  info.names = std::make_shared<const CodeNames>(std::move(names));
  info.first_line = FieldAt<int32_t>(raw, c.firstlineno);
  info.first_traceable = c.firsttraceable == kAbsent ? 0 : FieldAt<int32_t>(raw, c.firsttraceable);
  if (frame_objects) {
    // co_code, a bytes object; frames count their instruction from its start (f_lasti).
    const uint64_t bytecode = FieldAt<uint64_t>(raw, c.code);
    auto size = objects_.memory().ReadValue<int64_t>(bytecode + objects_.layout().bytes.ob_size);
    if (!Aligned(bytecode) || !size || *size < 0) {
      return UnreadableMemory(fmt::format("cannot read the bytecode of the code object at {:#x}", address));
    }
    info.bytecode_address = bytecode + objects_.layout().bytes.ob_sval;
    info.code_units = *size / objects_.layout().code.bytes_per_unit;
  } else {
    info.bytecode_address = address + c.code_adaptive;
    info.code_units = FieldAt<int64_t>(raw, objects_.layout().object.ob_size);
  }
  if (c.tlbc != kAbsent) info.tlbc_array = FieldAt<uint64_t>(raw, c.tlbc);
  if (c.nlocalsplus != kAbsent) info.nlocalsplus = FieldAt<int32_t>(raw, c.nlocalsplus);
  if (c.stacksize != kAbsent) info.stack_size = FieldAt<int32_t>(raw, c.stacksize);
  if (c.exceptiontable != kAbsent) info.exception_table = FieldAt<uint64_t>(raw, c.exceptiontable);
  // A table over the bound is not read: the frame is shown, its line unknown.
  const uint64_t table_address = FieldAt<uint64_t>(raw, c.linetable);
  auto table_size = objects_.memory().ReadValue<int64_t>(table_address + objects_.layout().bytes.ob_size);
  if (table_size && *table_size > static_cast<int64_t>(kMaxLocationTableBytes)) return info;
  if (table_size) {
    auto kept = tables_.find({table_address, static_cast<uint64_t>(*table_size)});
    if (kept != tables_.end()) {
      info.lines = kept->second;  // decoded for another code object: nothing read or decoded
      return info;
    }
  }
  PYU_ASSIGN_OR_RETURN(std::string table, objects_.ReadBytes(table_address, kMaxLocationTableBytes));
  if (budget.Exhausted()) return budget.StopError();
  LineTable decoded;
  switch (objects_.layout().line_format) {
    case LineTableFormat::kLocations: decoded = DecodeLocationTableOnce(table); break;
    case LineTableFormat::kLineTable: decoded = DecodeLineTable310Once(table); break;
    case LineTableFormat::kLnotab: decoded = DecodeLnotabOnce(table); break;
    case LineTableFormat::kLnotab27: decoded = DecodeLnotab27Once(table); break;
  }
  // Counted after the fact: one decode is bounded by the table's size (1 MiB). The older tables
  // count every (bytes, line) pair read, also those that make no range (a table of pairs of no
  // bytes decodes into nothing, at the same cost).
  const uint64_t entries = decoded.kind == LineTable::Kind::kLegacy
                               ? std::max<uint64_t>(decoded.ranges.size(), table.size() / 2)
                               : decoded.ranges.size();
  if (!budget.Spend(Work::kLineTableEntries, entries)) return budget.StopError();
  if (tables_.size() >= kMaxCodeObjectsCached) tables_.clear();
  auto& slot = tables_[{table_address, table.size()}];
  slot = std::make_shared<const LineTable>(std::move(decoded));
  info.lines = slot;
  return info;
}

}  // namespace pyunwind

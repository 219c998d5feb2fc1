// Which builtin a type is, by name and flags, and the builtin types named
// from the interpreter's builtins dict (a core rarely holds their tp_name).
#include <fmt/format.h>

#include "core/base/address.h"
#include "core/objects/values.h"

namespace pyunwind {
namespace {

// Py_TPFLAGS_* (Include/object.h, unchanged 3.11-3.15).
constexpr uint64_t kHeapType = 1ull << 9;
constexpr uint64_t kLongSubclass = 1ull << 24;
constexpr uint64_t kListSubclass = 1ull << 25;
constexpr uint64_t kTupleSubclass = 1ull << 26;
constexpr uint64_t kBytesSubclass = 1ull << 27;
constexpr uint64_t kUnicodeSubclass = 1ull << 28;
constexpr uint64_t kDictSubclass = 1ull << 29;

}  // namespace

namespace {

ValueFormatter::Kind KindOfBuiltin(const std::string& name) {
  using Kind = ValueFormatter::Kind;
  static const std::pair<const char*, Kind> kKinds[] = {
      {"NoneType", Kind::kNone}, {"bool", Kind::kBool},   {"int", Kind::kInt},
      {"float", Kind::kFloat},   {"str", Kind::kStr},     {"bytes", Kind::kBytes},
      {"tuple", Kind::kTuple},   {"list", Kind::kList},   {"dict", Kind::kDict},
      {"set", Kind::kSet},       {"frozenset", Kind::kFrozenSet}, {"cell", Kind::kCell}};
  for (const auto& [known, kind] : kKinds) {
    if (name == known) return kind;
  }
  return Kind::kOther;
}

}  // namespace

void ValueFormatter::ReadBuiltins() {
  const uint64_t interp = builtins_interp_;
  if (interp == 0) return;
  builtins_interp_ = 0;
  const Layout& l = objects_.layout();
  if (l.interp.builtins == kAbsent) return;
  auto dict = objects_.memory().ReadPointer(interp + l.interp.builtins);
  if (!dict || !Aligned(*dict)) return;
  auto items = collections_.DictItems(*dict, 4096);
  if (!items.ok()) return;
  std::vector<std::pair<std::string, uint64_t>> named;
  uint64_t type_type = 0;
  for (const auto& [key, value] : *items) {
    auto name = objects_.ReadString(key, 64);
    if (!name.ok()) continue;
    if (*name == "type") type_type = value;
    named.emplace_back(*name, value);
  }
  auto add = [&](uint64_t type, const std::string& name) {
    if (type == 0 || types_.count(type)) return;
    TypeInfo info;
    info.name = name;
    info.kind = KindOfBuiltin(name);
    if (l.type.tp_flags != kAbsent) {
      if (auto flags = objects_.memory().ReadValue<uint64_t>(type + l.type.tp_flags)) info.flags = *flags;
    }
    types_.emplace(type, std::move(info));
  };
  for (const auto& [name, value] : named) {
    auto type = objects_.TypeOf(value);
    if (!type.ok()) continue;
    if (type_type != 0 && *type == type_type) {
      add(value, name);  // a builtin type: int, str, ValueError, ...
    } else if (name == "None") {
      none_ = value;
      add(*type, "NoneType");
    } else if (name == "True") {
      add(*type, "bool");
    } else if (name == "Ellipsis") {
      add(*type, "ellipsis");
    } else if (name == "NotImplemented") {
      add(*type, "NotImplementedType");
    }
  }
}

bool ValueFormatter::IsNone(uint64_t address) {
  if (none_ != 0) return address == none_;
  if (auto type = objects_.TypeOf(address); type.ok()) {
    if (auto info = ReadTypeInfo(*type); info.ok() && info->named) {
      const bool none = info->kind == Kind::kNone;
      if (none) none_ = address;
      return none;
    }
  }
  ReadBuiltins();
  return none_ != 0 && address == none_;
}

Result<ValueFormatter::TypeInfo> ValueFormatter::TypeOf(uint64_t address) {
  PYU_ASSIGN_OR_RETURN(uint64_t type, objects_.TypeOf(address));
  return TypeInfoAt(type);
}

Result<ValueFormatter::TypeInfo> ValueFormatter::TypeInfoAt(uint64_t type) {
  ReadBuiltins();
  if (auto found = types_.find(type); found != types_.end()) return found->second;
  PYU_ASSIGN_OR_RETURN(TypeInfo info, ReadTypeInfo(type));
  if (types_.size() < 4096) types_.emplace(type, info);
  return info;
}

Result<ValueFormatter::TypeInfo> ValueFormatter::ReadTypeInfo(uint64_t type) {
  if (!Aligned(type)) return MakeError(fmt::format("bad type pointer {:#x}", type));
  const Layout& l = objects_.layout();
  RemoteMemory& memory = objects_.memory();
  TypeInfo info;
  if (!memory.ReadPointer(type + l.type.tp_name)) {
    return UnreadableMemory(fmt::format("cannot read the type object at {:#x}", type));
  }
  auto type_name = objects_.TypeNameOfType(type);
  // Unreadable: a static type whose name lives in the executable's read-only
  // data, which a core does not hold.
  const bool readable = type_name.ok();
  info.named = readable;
  info.name = readable ? std::move(*type_name) : fmt::format("type at {:#x}", type);
  if (l.type.tp_flags != kAbsent) {
    auto flags = memory.ReadValue<uint64_t>(type + l.type.tp_flags);
    if (!flags) {
      return UnreadableMemory(fmt::format("cannot read the flags of the type at {:#x}", type));
    }
    info.flags = *flags;
  }
  // A name alone does not make a builtin: it must be a static type with the
  // subclass bit CPython sets for it.
  const bool static_type = !(info.flags & kHeapType);
  static const std::pair<const char*, uint64_t> kRequired[] = {
      {"bool", kLongSubclass},     {"int", kLongSubclass},     {"str", kUnicodeSubclass},
      {"bytes", kBytesSubclass},   {"tuple", kTupleSubclass},  {"list", kListSubclass},
      {"dict", kDictSubclass}};
  Kind kind = readable && static_type ? KindOfBuiltin(info.name) : Kind::kOther;
  for (const auto& [name, flag] : kRequired) {
    if (info.name == name && l.type.tp_flags != kAbsent && !(info.flags & flag)) kind = Kind::kOther;
  }
  info.kind = kind;
  return info;
}

void ValueFormatter::NoteCell(uint64_t object) {
  ReadBuiltins();  // first, so that they do not rename the cell type
  auto type = objects_.TypeOf(object);
  if (!type.ok()) return;
  TypeInfo& info = types_[*type];
  info.name = "cell";
  info.named = true;
  info.kind = Kind::kCell;
}

}  // namespace pyunwind

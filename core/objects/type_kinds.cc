// Which builtin a type is, by name and flags, and the builtin types named
// from the interpreter's builtins dict (a core rarely holds their tp_name).
#include <fmt/format.h>

#include "core/base/address.h"
#include "core/objects/type_flags.h"
#include "core/objects/values.h"

namespace pyunwind {
namespace {

using Kind = ValueFormatter::Kind;

// The builtin types by name, and the subclass flag CPython sets on each.
struct Builtin {
  const char* name;
  Kind kind;
  uint64_t required_flag;  // 0: none
};

const Builtin kBuiltins3[] = {
    {"NoneType", Kind::kNone, 0},   {"bool", Kind::kBool, kLongSubclassFlag},
    {"int", Kind::kInt, kLongSubclassFlag},     {"float", Kind::kFloat, 0},
    {"str", Kind::kStr, kUnicodeSubclassFlag},  {"bytes", Kind::kBytes, kBytesSubclassFlag},
    {"tuple", Kind::kTuple, kTupleSubclassFlag}, {"list", Kind::kList, kListSubclassFlag},
    {"dict", Kind::kDict, kDictSubclassFlag},   {"set", Kind::kSet, 0},
    {"frozenset", Kind::kFrozenSet, 0},         {"cell", Kind::kCell, 0}};

// 2.7: str is bytes (PyStringObject), unicode is text, and int (PyIntObject, bool's base)
// sits beside long.
const Builtin kBuiltins2[] = {
    {"NoneType", Kind::kNone, 0},   {"bool", Kind::kBool, kIntSubclassFlag},
    {"int", Kind::kInt, kIntSubclassFlag},      {"long", Kind::kInt, kLongSubclassFlag},
    {"float", Kind::kFloat, 0},     {"str", Kind::kBytes, kBytesSubclassFlag},
    {"unicode", Kind::kStr, kUnicodeSubclassFlag}, {"tuple", Kind::kTuple, kTupleSubclassFlag},
    {"list", Kind::kList, kListSubclassFlag},   {"dict", Kind::kDict, kDictSubclassFlag},
    {"set", Kind::kSet, 0},         {"frozenset", Kind::kFrozenSet, 0},
    {"cell", Kind::kCell, 0}};

const Builtin* FindBuiltin(const Layout& l, const std::string& name) {
  auto find = [&](const auto& table) -> const Builtin* {
    for (const Builtin& builtin : table) {
      if (name == builtin.name) return &builtin;
    }
    return nullptr;
  };
  return IsPython2(l) ? find(kBuiltins2) : find(kBuiltins3);
}

Kind KindOfBuiltin(const Layout& l, const std::string& name) {
  const Builtin* builtin = FindBuiltin(l, name);
  return builtin ? builtin->kind : Kind::kOther;
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
    if (IsPython2(l) && *name == "bytes") continue;  // 2.7: another name of str
    if (*name == "type") type_type = value;
    named.emplace_back(*name, value);
  }
  auto add = [&](uint64_t type, const std::string& name) {
    if (type == 0 || types_.count(type)) return;
    TypeInfo info;
    info.name = name;
    info.kind = KindOfBuiltin(l, name);
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
  const bool static_type = !(info.flags & kHeapTypeFlag);
  const Builtin* builtin = readable && static_type ? FindBuiltin(l, info.name) : nullptr;
  info.kind = builtin ? builtin->kind : Kind::kOther;
  if (builtin && builtin->required_flag != 0 && l.type.tp_flags != kAbsent &&
      !(info.flags & builtin->required_flag)) {
    info.kind = Kind::kOther;
  }
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

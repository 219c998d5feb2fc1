#include "core/objects/values.h"

#include <fmt/format.h>

#include "core/base/address.h"
#include "core/objects/callable_repr.h"
#include "core/objects/repr_text.h"
#include "core/objects/type_flags.h"

namespace pyunwind {

std::string ShortTypeName(const std::string& tp_name) {
  const size_t dot = tp_name.rfind('.');
  return dot == std::string::npos ? tp_name : tp_name.substr(dot + 1);
}

ValueFormatter::ValueFormatter(ObjectReader& objects, ReprLimits limits)
    : objects_(objects), limits_(limits), collections_(objects) {}

Result<double> ValueFormatter::ReadReal(uint64_t address) {
  PYU_ASSIGN_OR_RETURN(TypeInfo type, TypeOf(address));
  if (type.kind == Kind::kInt) {
    PYU_ASSIGN_OR_RETURN(int64_t value, objects_.ReadInt(address));
    return static_cast<double>(value);
  }
  const Layout& l = objects_.layout();
  if (type.kind != Kind::kFloat || l.float_object.ob_fval == kAbsent) {
    return MakeError(fmt::format("the object at {:#x} is not a float or an int", address));
  }
  auto value = objects_.memory().ReadValue<double>(address + l.float_object.ob_fval);
  if (!value) return UnreadableMemory(fmt::format("cannot read the float at {:#x}", address));
  return *value;
}

Result<uint64_t> ValueFormatter::CellContents(uint64_t cell) {
  auto ref = objects_.memory().ReadPointer(cell + objects_.layout().cell.ob_ref);
  if (!ref) return UnreadableMemory(fmt::format("cannot read the cell at {:#x}", cell));
  return *ref;
}

Status ValueFormatter::AppendInt(uint64_t address, std::string& out) {
  PYU_ASSIGN_OR_RETURN(IntDigits value, objects_.ReadIntDigits(address, kMaxReprIntDigits));
  if (value.count > kMaxReprIntDigits) {
    out += fmt::format("<int of {} 30-bit digits>", value.count);
    return Ok{};
  }
  std::string decimal = DigitsToDecimal(std::move(value.digits));
  if (value.negative && decimal != "0") out += '-';
  out += decimal;
  return Ok{};
}

Status ValueFormatter::AppendStr(uint64_t address, std::string& out) {
  // One character past what a repr can show tells that it is cut.
  PYU_ASSIGN_OR_RETURN(StrText str, objects_.ReadStrText(address, limits_.max_length + 1));
  out += StrRepr(str.text, str.truncated());
  return Ok{};
}

Status ValueFormatter::AppendPython2Unicode(uint64_t address, std::string& out) {
  PYU_ASSIGN_OR_RETURN(StrText str, objects_.ReadStrText(address, limits_.max_length + 1));
  out += "u" + StrRepr(str.text, str.truncated(), /*ascii_only=*/true);
  return Ok{};
}

Status ValueFormatter::Append(uint64_t address, int depth, std::string& out) {
  PYU_ASSIGN_OR_RETURN(TypeInfo type, TypeOf(address));
  RemoteMemory& memory = objects_.memory();
  const Layout& l = objects_.layout();
  auto nested = [&](uint64_t item) {
    if (Full(out)) return;
    if (!Append(item, depth + 1, out).ok()) out += fmt::format("<unreadable {:#x}>", item);
  };
  switch (type.kind) {
    case Kind::kNone:
      out += "None";
      return Ok{};
    case Kind::kBool: {
      std::string value;
      PYU_RETURN_IF_ERROR(AppendInt(address, value));
      out += value == "0" ? "False" : "True";
      return Ok{};
    }
    case Kind::kInt:
      PYU_RETURN_IF_ERROR(AppendInt(address, out));
      if (IsPython2(l) && (type.flags & kLongSubclassFlag)) out += 'L';  // 2.7's long
      return Ok{};
    case Kind::kFloat: {
      if (l.float_object.ob_fval == kAbsent) break;
      auto value = memory.ReadValue<double>(address + l.float_object.ob_fval);
      if (!value) return UnreadableMemory(fmt::format("cannot read the float at {:#x}", address));
      out += FloatRepr(*value);
      return Ok{};
    }
    case Kind::kStr:
      if (IsPython2(l)) return AppendPython2Unicode(address, out);
      return AppendStr(address, out);
    case Kind::kBytes: {  // 2.7: str
      auto size = memory.ReadValue<int64_t>(address + l.bytes.ob_size);
      if (!size || *size < 0) {
        return UnreadableMemory(fmt::format("cannot read the bytes at {:#x}", address));
      }
      const size_t count = std::min<uint64_t>(*size, limits_.max_length + 1);
      std::string data(count, '\0');
      if (!memory.Read(address + l.bytes.ob_sval, data.data(), count)) {
        return UnreadableMemory(
            fmt::format("cannot read the contents of the bytes at {:#x}", address));
      }
      const std::string repr = BytesRepr(data, static_cast<uint64_t>(*size) > count);
      out += IsPython2(l) ? repr.substr(1) : repr;  // 2.7's str repr has no b
      return Ok{};
    }
    case Kind::kTuple:
    case Kind::kList: {
      const bool tuple = type.kind == Kind::kTuple;
      const char* open = tuple ? "(" : "[";
      const char* close = tuple ? ")" : "]";
      const int32_t size_offset = tuple ? l.tuple.ob_size : l.list.ob_size;
      auto size = memory.ReadValue<int64_t>(address + size_offset);
      if (!size || *size < 0 || *size > (int64_t{1} << 40)) {
        return UnreadableMemory(fmt::format("cannot read the {} at {:#x}", type.name, address));
      }
      if (depth >= limits_.max_depth || active_.count(address)) {
        out += fmt::format("{}...{}", open, close);
        return Ok{};
      }
      const size_t shown = std::min<uint64_t>(*size, limits_.max_items);
      std::vector<uint64_t> items(shown);
      uint64_t base = address + l.tuple.ob_item;
      if (!tuple) {
        auto pointer = memory.ReadPointer(address + l.list.ob_item);
        if (!pointer) {
          return UnreadableMemory(fmt::format("cannot read the list at {:#x}", address));
        }
        base = *pointer;
      }
      if (shown > 0 && (!Aligned(base) || !memory.Read(base, items.data(), shown * 8))) {
        return UnreadableMemory(
            fmt::format("cannot read the items of the {} at {:#x}", type.name, address));
      }
      active_.insert(address);
      out += open;
      for (size_t i = 0; i < shown && !Full(out); ++i) {
        if (i > 0) out += ", ";
        nested(items[i]);
      }
      if (static_cast<uint64_t>(*size) > shown) out += ", ...";
      if (tuple && *size == 1) out += ",";
      out += close;
      active_.erase(address);
      return Ok{};
    }
    case Kind::kDict: {
      if (depth >= limits_.max_depth || active_.count(address)) {
        out += "{...}";
        return Ok{};
      }
      PYU_ASSIGN_OR_RETURN(auto items, collections_.DictItems(address));
      active_.insert(address);
      out += "{";
      for (size_t i = 0; i < items.size() && i < limits_.max_items && !Full(out); ++i) {
        if (i > 0) out += ", ";
        nested(items[i].first);
        out += ": ";
        nested(items[i].second);
      }
      if (items.size() > limits_.max_items) out += ", ...";
      out += "}";
      active_.erase(address);
      return Ok{};
    }
    case Kind::kSet:
    case Kind::kFrozenSet: {
      const bool frozen = type.kind == Kind::kFrozenSet;
      PYU_ASSIGN_OR_RETURN(auto items, collections_.SetItems(address));
      if (items.empty()) {
        out += frozen ? "frozenset()" : "set()";
        return Ok{};
      }
      if (frozen) out += "frozenset(";
      if (depth >= limits_.max_depth || active_.count(address)) {
        out += "{...}";
      } else {
        active_.insert(address);
        out += "{";
        for (size_t i = 0; i < items.size() && i < limits_.max_items && !Full(out); ++i) {
          if (i > 0) out += ", ";
          nested(items[i]);
        }
        if (items.size() > limits_.max_items) out += ", ...";
        out += "}";
        active_.erase(address);
      }
      if (frozen) out += ")";
      return Ok{};
    }
    case Kind::kCell:
    case Kind::kOther:
      break;
  }
  // Python's own repr of the C-level callables; where one cannot be read, the
  // plain form below, which is true of any object.
  if (auto callable = CCallableRepr(objects_, address, type.name); callable.ok() && *callable) {
    out += **callable;
    return Ok{};
  }
  if (type.name == "method") {
    if (auto qualname = BoundMethodQualname(address)) {
      auto self = memory.ReadPointer(address + l.method.im_self);
      if (self && *self != 0) {
        // Objects/classobject.c, method_repr.
        out += "<bound method " + *qualname + " of ";
        nested(*self);
        out += ">";
        return Ok{};
      }
    }
  }
  if (type.name == "type") {  // a class: type.__repr__
    if (auto repr = ClassRepr(objects_, address); repr.ok()) {
      out += *repr;
      return Ok{};
    }
  }
  // object.__repr__: a static type's tp_name (or the builtins' name for it) carries its
  // module; a heap type's name is its __module__ and qualified name (TypeReprName).
  if (!(type.flags & kHeapTypeFlag)) {
    out += fmt::format("<{} object at {:#x}>", type.name, address);
    return Ok{};
  }
  PYU_ASSIGN_OR_RETURN(uint64_t type_address, objects_.TypeOf(address));
  auto known = repr_names_.find(type_address);
  if (known == repr_names_.end()) {
    PYU_ASSIGN_OR_RETURN(std::string name, TypeReprName(objects_, type_address));
    known = repr_names_.emplace(type_address, std::move(name)).first;
  }
  out += fmt::format("<{} object at {:#x}>", known->second, address);
  return Ok{};
}

std::optional<std::string> ValueFormatter::BoundMethodQualname(uint64_t method) {
  const Layout& l = objects_.layout();
  auto function = objects_.memory().ReadPointer(method + l.method.im_func);
  if (!function || *function == 0) return std::nullopt;
  auto type = objects_.TypeName(*function);
  if (!type.ok() || *type != "function") return std::nullopt;
  auto qualname = objects_.memory().ReadPointer(*function + l.function.func_qualname);
  if (!qualname || *qualname == 0) return std::nullopt;
  auto text = objects_.ReadString(*qualname, kMaxQualnameInRepr);
  if (!text.ok()) return std::nullopt;
  return *text;
}

Result<std::string> ValueFormatter::Repr(uint64_t address) {
  active_.clear();
  std::string out;
  PYU_RETURN_IF_ERROR(Append(address, 0, out));
  if (out.size() > limits_.max_length) {
    CutUtf8(out, limits_.max_length);
    out += "...";
  }
  return out;
}

ValueDescription ValueFormatter::Describe(uint64_t address) {
  ValueDescription description;
  auto type = TypeOf(address);
  if (!type.ok()) {
    description.error = type.error().message;
    return description;
  }
  description.type = ShortTypeName(type->name);
  auto repr = Repr(address);
  if (repr.ok()) {
    description.repr = std::move(*repr);
  } else {
    description.error = repr.error().message;
  }
  return description;
}

ValueDescription ValueFormatter::TaggedInt(int64_t value) {
  return {"int", std::to_string(value), std::nullopt};
}

}  // namespace pyunwind

#include "core/objects/values.h"
#include "core/base/address.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <cstring>
#include <system_error>

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

constexpr size_t kMaxTypeNameLength = 256;

// Python's str.isprintable() for a code point past ASCII, without the
// Unicode database: the categories it calls unprintable (Cc, Cf, Cs, Co, Zl,
// Zp, Zs) for the code points where they occur in practice. Unassigned code
// points (Cn) are not known here and are shown as they are.
bool PrintableNonAscii(uint32_t c) {
  if (c <= 0xA0 || c == 0xAD) return false;  // C1 controls, NBSP, soft hyphen
  if ((c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x890 ||
      c == 0x891 || c == 0x8E2 || c == 0x180E || c == 0x1680) {
    return false;
  }
  if ((c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
      (c >= 0x205F && c <= 0x2064) || (c >= 0x2066 && c <= 0x206F) || c == 0x3000) {
    return false;
  }
  if (c >= 0xD800 && c <= 0xF8FF) return false;  // surrogates, private use
  if ((c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE || c == 0xFEFF ||
      (c >= 0xFFF9 && c <= 0xFFFB)) {
    return false;
  }
  if (c == 0x110BD || c == 0x110CD || (c >= 0x13430 && c <= 0x1343F) ||
      (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 ||
      (c >= 0xE0020 && c <= 0xE007F) || c >= 0xF0000) {
    return false;
  }
  return c <= 0x10FFFF;
}

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
void CutUtf8(std::string& text, size_t limit) {
  if (text.size() <= limit) return;
  size_t end = limit;
  while (end > 0 && (static_cast<uint8_t>(text[end]) & 0xC0) == 0x80) --end;
  text.resize(end);
}

// The quote of a str or bytes repr, as CPython picks it: ' unless the text has ' and no ".
char ReprQuote(bool has_single, bool has_double) { return has_single && !has_double ? '"' : '\''; }

// The escapes str and bytes reprs share (the quote, backslash, tab, newline, carriage
// return); false, appending nothing, for any other character.
bool AppendCommonEscape(std::string& out, uint32_t c, char quote) {
  if (c == static_cast<uint8_t>(quote) || c == '\\') {
    out += '\\';
    out += static_cast<char>(c);
  } else if (c == '\t') {
    out += "\\t";
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string ShortTypeName(const std::string& tp_name) {
  const size_t dot = tp_name.rfind('.');
  return dot == std::string::npos ? tp_name : tp_name.substr(dot + 1);
}

ValueFormatter::ValueFormatter(ObjectReader& objects) : objects_(objects), collections_(objects) {}

std::string ValueFormatter::FloatRepr(double value) {
  if (value != value) return "nan";
  if (value == std::numeric_limits<double>::infinity()) return "inf";
  if (value == -std::numeric_limits<double>::infinity()) return "-inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  if (ec != std::errc()) return "?";
  const std::string text(buffer, end);  // "-d.ddde+XX", shortest round-trip digits
  const bool negative = text[0] == '-';
  const size_t e = text.find('e');
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  const int exponent = std::atoi(text.c_str() + e + 1);
  const int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
  std::string out = negative ? "-" : "";
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {  // Python's float_repr_style 'r'
    out += digits[0];
    if (n > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  } else if (decpt <= 0) {
    out += "0." + std::string(-decpt, '0') + digits;
  } else if (decpt < n) {
    out += digits.substr(0, decpt) + "." + digits.substr(decpt);
  } else {
    out += digits + std::string(decpt - n, '0') + ".0";
  }
  return out;
}

std::string ValueFormatter::StrRepr(const std::u32string& text, bool truncated) {
  bool has_single = false, has_double = false;
  for (char32_t c : text) {
    has_single = has_single || c == '\'';
    has_double = has_double || c == '"';
  }
  const char quote = ReprQuote(has_single, has_double);
  std::string out(1, quote);
  for (char32_t c32 : text) {
    const uint32_t c = c32;
    if (AppendCommonEscape(out, c, quote)) continue;
    if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c < 0x7F || PrintableNonAscii(c)) {
      AppendUtf8(out, c);
    } else if (c < 0x100) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c < 0x10000) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += fmt::format("\\U{:08x}", c);
    }
  }
  if (!truncated) out += quote;
  return out;
}

std::string ValueFormatter::BytesRepr(const std::string& data, bool truncated) {
  const char quote = ReprQuote(data.find('\'') != std::string::npos,
                               data.find('"') != std::string::npos);
  std::string out = "b";
  out += quote;
  for (char ch : data) {
    const auto c = static_cast<uint8_t>(ch);
    if (AppendCommonEscape(out, c, quote)) continue;
    if (c < 0x20 || c >= 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (!truncated) out += quote;
  return out;
}

std::string ValueFormatter::DigitsToDecimal(std::vector<uint32_t> d) {
  while (!d.empty() && d.back() == 0) d.pop_back();
  if (d.empty()) return "0";
  std::vector<uint32_t> chunks;  // base 10^9, least significant first
  while (!d.empty()) {
    uint64_t remainder = 0;
    for (size_t i = d.size(); i-- > 0;) {
      const uint64_t current = (remainder << 30) | d[i];
      d[i] = static_cast<uint32_t>(current / 1000000000u);
      remainder = current % 1000000000u;
    }
    chunks.push_back(static_cast<uint32_t>(remainder));
    while (!d.empty() && d.back() == 0) d.pop_back();
  }
  std::string out = std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) out += fmt::format("{:09d}", chunks[i]);
  return out;
}

Result<uint64_t> ValueFormatter::TypeAddress(uint64_t address) {
  if (!Aligned(address)) return MakeError(fmt::format("bad object pointer {:#x}", address));
  auto type = objects_.memory().ReadPointer(address + objects_.layout().object.ob_type);
  if (!type) return MakeError(fmt::format("cannot read the object at {:#x}", address));
  if (!Aligned(*type)) return MakeError(fmt::format("the object at {:#x} has a bad type pointer", address));
  return *type;
}

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

void ValueFormatter::LoadBuiltins(uint64_t interp) {
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
    auto type = TypeAddress(value);
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

Result<ValueFormatter::TypeInfo> ValueFormatter::TypeOf(uint64_t address) {
  PYU_ASSIGN_OR_RETURN(uint64_t type, TypeAddress(address));
  return TypeInfoAt(type);
}

Result<ValueFormatter::TypeInfo> ValueFormatter::TypeInfoAt(uint64_t type) {
  if (!Aligned(type)) return MakeError(fmt::format("bad type pointer {:#x}", type));
  if (auto found = types_.find(type); found != types_.end()) return found->second;
  const Layout& l = objects_.layout();
  RemoteMemory& memory = objects_.memory();
  TypeInfo info;
  auto name_address = memory.ReadPointer(type + l.type.tp_name);
  if (!name_address) return MakeError(fmt::format("cannot read the type object at {:#x}", type));
  bool readable = *name_address != 0;
  bool terminated = false;
  while (readable && !terminated && info.name.size() < kMaxTypeNameLength) {
    // Byte by byte through the page cache: the name may end just before an unmapped page.
    auto c = memory.ReadValue<char>(*name_address + info.name.size());
    if (!c) {
      readable = false;
    } else if (*c == '\0') {
      terminated = true;
    } else {
      info.name += *c;
    }
  }
  if (!readable) {
    // A static type whose name lives in the executable's read-only data, which
    // a core does not hold.
    info.name = fmt::format("type at {:#x}", type);
    info.named = false;
  } else if (!terminated) {
    info.name += "...";
  }
  if (l.type.tp_flags != kAbsent) {
    auto flags = memory.ReadValue<uint64_t>(type + l.type.tp_flags);
    if (!flags) return MakeError(fmt::format("cannot read the flags of the type at {:#x}", type));
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
  if (types_.size() < 4096) types_.emplace(type, info);
  return info;
}

void ValueFormatter::NoteCell(uint64_t object) {
  auto type = TypeAddress(object);
  if (!type.ok()) return;
  TypeInfo& info = types_[*type];
  info.name = "cell";
  info.named = true;
  info.kind = Kind::kCell;
}

Result<uint64_t> ValueFormatter::CellContents(uint64_t cell) {
  // PyCellObject { PyObject_HEAD; PyObject *ob_ref; }
  const int32_t header = objects_.layout().object.ob_type + 8;
  auto ref = objects_.memory().ReadPointer(cell + header);
  if (!ref) return MakeError(fmt::format("cannot read the cell at {:#x}", cell));
  return *ref;
}

Status ValueFormatter::AppendInt(uint64_t address, std::string& out) {
  const Layout::Long& l = objects_.layout().long_object;
  RemoteMemory& memory = objects_.memory();
  uint64_t count = 0;
  bool negative = false;
  if (l.lv_tag != kAbsent) {
    auto tag = memory.ReadValue<uint64_t>(address + l.lv_tag);
    if (!tag) return MakeError(fmt::format("cannot read the int at {:#x}", address));
    count = *tag >> 3;
    negative = (*tag & 3) == 2;
  } else {
    auto size = memory.ReadValue<int64_t>(address + l.ob_size);
    if (!size) return MakeError(fmt::format("cannot read the int at {:#x}", address));
    if (*size == INT64_MIN) return MakeError(fmt::format("the int at {:#x} has an impossible size", address));
    negative = *size < 0;
    count = static_cast<uint64_t>(negative ? -*size : *size);
  }
  if (count > kMaxReprIntDigits) {
    out += fmt::format("<int of {} 30-bit digits>", count);
    return Ok{};
  }
  std::vector<uint32_t> digits(count);
  if (count > 0 && !memory.Read(address + l.ob_digit, digits.data(), count * 4)) {
    return MakeError(fmt::format("cannot read the digits of the int at {:#x}", address));
  }
  for (uint32_t digit : digits) {
    if (digit >> 30) return MakeError(fmt::format("the int at {:#x} has a digit out of range", address));
  }
  std::string decimal = DigitsToDecimal(std::move(digits));
  if (negative && decimal != "0") out += '-';
  out += decimal;
  return Ok{};
}

Status ValueFormatter::AppendStr(uint64_t address, std::string& out) {
  const Layout::Unicode& u = objects_.layout().unicode;
  RemoteMemory& memory = objects_.memory();
  auto length = memory.ReadValue<int64_t>(address + u.length);
  auto state = memory.ReadValue<uint32_t>(address + u.state);
  if (!length || !state) return MakeError(fmt::format("cannot read the str at {:#x}", address));
  if (*length < 0 || *length > (int64_t{1} << 40)) {
    return MakeError(fmt::format("the str at {:#x} has an impossible length", address));
  }
  const uint32_t kind = (*state >> u.kind_shift) & 7;
  const bool compact = (*state >> u.compact_bit) & 1;
  const bool ascii = (*state >> u.ascii_bit) & 1;
  if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1)) {
    return MakeError(fmt::format("the str at {:#x} is not a compact string", address));
  }
  // One character past what a repr can show tells that it is cut.
  const size_t count = std::min<uint64_t>(*length, kMaxReprLength + 1);
  std::vector<uint8_t> raw(count * kind);
  if (!memory.Read(address + (ascii ? u.ascii_data : u.compact_data), raw.data(), raw.size())) {
    return MakeError(fmt::format("cannot read the text of the str at {:#x}", address));
  }
  std::u32string text;
  text.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t cp = 0;
    std::memcpy(&cp, &raw[i * kind], kind);  // little-endian units of 1, 2 or 4 bytes
    text += static_cast<char32_t>(cp);
  }
  out += StrRepr(text, static_cast<uint64_t>(*length) > count);
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
      return AppendInt(address, out);
    case Kind::kFloat: {
      if (l.float_object.ob_fval == kAbsent) break;
      auto value = memory.ReadValue<double>(address + l.float_object.ob_fval);
      if (!value) return MakeError(fmt::format("cannot read the float at {:#x}", address));
      out += FloatRepr(*value);
      return Ok{};
    }
    case Kind::kStr:
      return AppendStr(address, out);
    case Kind::kBytes: {
      auto size = memory.ReadValue<int64_t>(address + l.bytes.ob_size);
      if (!size || *size < 0) return MakeError(fmt::format("cannot read the bytes at {:#x}", address));
      const size_t count = std::min<uint64_t>(*size, kMaxReprLength + 1);
      std::string data(count, '\0');
      if (!memory.Read(address + l.bytes.ob_sval, data.data(), count)) {
        return MakeError(fmt::format("cannot read the contents of the bytes at {:#x}", address));
      }
      out += BytesRepr(data, static_cast<uint64_t>(*size) > count);
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
        return MakeError(fmt::format("cannot read the {} at {:#x}", type.name, address));
      }
      if (depth >= kMaxReprDepth || active_.count(address)) {
        out += fmt::format("{}...{}", open, close);
        return Ok{};
      }
      const size_t shown = std::min<uint64_t>(*size, kMaxReprItems);
      std::vector<uint64_t> items(shown);
      uint64_t base = address + l.tuple.ob_item;
      if (!tuple) {
        auto pointer = memory.ReadPointer(address + l.list.ob_item);
        if (!pointer) return MakeError(fmt::format("cannot read the list at {:#x}", address));
        base = *pointer;
      }
      if (shown > 0 && (!Aligned(base) || !memory.Read(base, items.data(), shown * 8))) {
        return MakeError(fmt::format("cannot read the items of the {} at {:#x}", type.name, address));
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
      if (depth >= kMaxReprDepth || active_.count(address)) {
        out += "{...}";
        return Ok{};
      }
      PYU_ASSIGN_OR_RETURN(auto items, collections_.DictItems(address));
      active_.insert(address);
      out += "{";
      for (size_t i = 0; i < items.size() && i < kMaxReprItems && !Full(out); ++i) {
        if (i > 0) out += ", ";
        nested(items[i].first);
        out += ": ";
        nested(items[i].second);
      }
      if (items.size() > kMaxReprItems) out += ", ...";
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
      if (depth >= kMaxReprDepth || active_.count(address)) {
        out += "{...}";
      } else {
        active_.insert(address);
        out += "{";
        for (size_t i = 0; i < items.size() && i < kMaxReprItems && !Full(out); ++i) {
          if (i > 0) out += ", ";
          nested(items[i]);
        }
        if (items.size() > kMaxReprItems) out += ", ...";
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
  out += fmt::format("<{} object at {:#x}>", type.name, address);
  return Ok{};
}

Result<std::string> ValueFormatter::Repr(uint64_t address) {
  active_.clear();
  std::string out;
  PYU_RETURN_IF_ERROR(Append(address, 0, out));
  if (out.size() > kMaxReprLength) {
    CutUtf8(out, kMaxReprLength);
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

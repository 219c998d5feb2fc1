#include "core/objects/objects.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "core/base/address.h"
#include "core/base/utf8.h"
#include "core/objects/remote_collections.h"
#include "core/objects/type_flags.h"

namespace pyunwind {
namespace {

constexpr size_t kMaxTypeNameLength = 256;
constexpr int64_t kMaxStringSize = int64_t{1} << 40;  // beyond any real string

// 2.7's str: bytes, shown as their UTF-8 text, or byte for byte where they are not UTF-8.
StrText TextOfBytes(const std::string& data, uint64_t size) {
  StrText out;
  for (size_t i = 0; i < data.size();) {
    uint32_t cp = 0;
    const size_t n = DecodeUtf8(data, i, cp);
    if (n == 0) {
      // Not UTF-8 (or cut mid-character at the end of what was read): Latin-1.
      if (data.size() - i < 4 && data.size() < size) break;
      out.text.clear();
      for (char byte : data) out.text += static_cast<char32_t>(static_cast<uint8_t>(byte));
      out.length = size;
      return out;
    }
    out.text += static_cast<char32_t>(cp);
    i += n;
  }
  // Whole: its characters; cut: at least one more than was kept.
  out.length = data.size() == size ? out.text.size() : std::max<uint64_t>(size, out.text.size() + 1);
  return out;
}

}  // namespace

Result<uint64_t> ObjectReader::TypeFlagsOf(uint64_t object) {
  PYU_ASSIGN_OR_RETURN(uint64_t type, TypeOf(object));
  auto flags = memory_.ReadValue<uint64_t>(type + layout_.type.tp_flags);
  if (!flags) return UnreadableMemory(fmt::format("cannot read the type of the object at {:#x}", object));
  return *flags;
}

Result<StrText> ObjectReader::ReadPython2Text(uint64_t address, size_t max_chars) {
  PYU_ASSIGN_OR_RETURN(uint64_t flags, TypeFlagsOf(address));
  if (flags & kBytesSubclassFlag) {  // str
    auto size = memory_.ReadValue<int64_t>(address + layout_.bytes.ob_size);
    if (!size) return UnreadableMemory(fmt::format("cannot read the string at {:#x}", address));
    if (*size < 0 || *size > kMaxStringSize) {
      return MakeError(fmt::format("the string at {:#x} has an impossible length", address));
    }
    // Up to 4 bytes a character.
    std::string data(std::min<uint64_t>(*size, uint64_t{max_chars} * 4), '\0');
    if (!memory_.Read(address + layout_.bytes.ob_sval, data.data(), data.size())) {
      return UnreadableMemory(fmt::format("cannot read the text of the string at {:#x}", address));
    }
    StrText out = TextOfBytes(data, static_cast<uint64_t>(*size));
    if (out.text.size() > max_chars) out.text.resize(max_chars);
    return out;
  }
  if (!(flags & kUnicodeSubclassFlag)) {
    return MakeError(fmt::format("the object at {:#x} is neither str nor unicode", address));
  }
  const Layout::Unicode& u = layout_.unicode;
  auto length = memory_.ReadValue<int64_t>(address + u.length);
  auto units = memory_.ReadPointer(address + u.legacy_str);
  if (!length || !units) return UnreadableMemory(fmt::format("cannot read the unicode at {:#x}", address));
  if (*length < 0 || *length > kMaxStringSize || (*length > 0 && (*units == 0 || *units % 2 != 0))) {
    return MakeError(fmt::format("the unicode at {:#x} is not plausible", address));
  }
  const size_t count = std::min<uint64_t>(*length, max_chars);
  const size_t width = static_cast<size_t>(u.legacy_unit_bytes);
  std::vector<uint8_t> raw(count * width);
  if (!raw.empty() && !memory_.Read(*units, raw.data(), raw.size())) {
    return UnreadableMemory(fmt::format("cannot read the text of the unicode at {:#x}", address));
  }
  StrText out;
  out.length = static_cast<uint64_t>(*length);
  for (size_t i = 0; i < count; ++i) {
    uint32_t cp = 0;
    std::memcpy(&cp, &raw[i * width], width);  // UCS2 (surrogates left as they are) or UCS4
    out.text += static_cast<char32_t>(cp);
  }
  return out;
}

Result<uint64_t> ObjectReader::TypeOf(uint64_t object) {
  if (!Aligned(object)) return MakeError(fmt::format("bad object pointer {:#x}", object));
  auto type = memory_.ReadPointer(object + layout_.object.ob_type);
  if (!type) return UnreadableMemory(fmt::format("cannot read the object at {:#x}", object));
  if (!Aligned(*type)) return MakeError(fmt::format("the object at {:#x} has a bad type pointer", object));
  return *type;
}

Result<uint64_t> ObjectReader::Refcount(uint64_t object) {
  if (!Aligned(object)) return MakeError(fmt::format("bad object pointer {:#x}", object));
  if (layout_.free_threaded) return MakeError("a free-threaded build splits its reference counts");
  const uint64_t at = object + layout_.object.ob_refcnt;
  // 3.12+ keep the count in the low 32 bits (immortality and, 3.14+, flags above them).
  if (layout_.version.AtLeast(3, 12)) {
    auto count = memory_.ReadValue<uint32_t>(at);
    if (!count) return UnreadableMemory(fmt::format("cannot read the object at {:#x}", object));
    return uint64_t{*count};
  }
  auto count = memory_.ReadValue<uint64_t>(at);
  if (!count) return UnreadableMemory(fmt::format("cannot read the object at {:#x}", object));
  return *count;
}

Result<std::string> ObjectReader::TypeNameOfType(uint64_t type) {
  auto name = memory_.ReadPointer(type + layout_.type.tp_name);
  if (!name || *name == 0) return UnreadableMemory("cannot read a type's name");
  auto text = ReadCString(*name, kMaxTypeNameLength);
  if (!text.ok()) return UnreadableMemory("cannot read a type's name");
  return text;
}

Result<std::string> ObjectReader::ReadCString(uint64_t address, size_t max_length) {
  std::string out;
  while (out.size() < max_length) {
    // Byte by byte through the page cache: the name may end just before an
    // unmapped page, and a core often lacks the read-only data it lives in.
    auto c = memory_.ReadValue<char>(address + out.size());
    if (!c) return UnreadableMemory(fmt::format("cannot read the C string at {:#x}", address));
    if (*c == '\0') return out;
    out += *c;
  }
  return out + "...";
}

Result<std::string> ObjectReader::TypeName(uint64_t object_address) {
  PYU_ASSIGN_OR_RETURN(uint64_t type, TypeOf(object_address));
  return TypeNameOfType(type);
}

Result<StrText> ObjectReader::ReadStrText(uint64_t address, size_t max_chars) {
  const Layout::Unicode& u = layout_.unicode;
  if (!Aligned(address)) return MakeError(fmt::format("bad string pointer {:#x}", address));
  if (u.legacy_str != kAbsent) return ReadPython2Text(address, max_chars);
  auto length = memory_.ReadValue<int64_t>(address + u.length);
  auto state = memory_.ReadValue<uint32_t>(address + u.state);
  if (!length || !state) {
    return UnreadableMemory(fmt::format("cannot read the string at {:#x}", address));
  }
  if (*length < 0 || *length > (int64_t{1} << 40)) {
    return MakeError(fmt::format("the string at {:#x} has an impossible length", address));
  }
  const uint32_t kind = (*state >> u.kind_shift) & 7;  // bytes per character
  const bool compact = (*state >> u.compact_bit) & 1;
  const bool ascii = (*state >> u.ascii_bit) & 1;
  if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1)) {
    return MakeError(fmt::format("the string at {:#x} is not a compact string", address));
  }
  const size_t count = std::min<uint64_t>(*length, max_chars);
  std::vector<uint8_t> raw(count * kind);
  if (!memory_.Read(address + (ascii ? u.ascii_data : u.compact_data), raw.data(), raw.size())) {
    return UnreadableMemory(fmt::format("cannot read the text of the string at {:#x}", address));
  }
  StrText out;
  out.length = static_cast<uint64_t>(*length);
  out.text.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t cp = 0;
    std::memcpy(&cp, &raw[i * kind], kind);  // little-endian units of 1, 2 or 4 bytes
    out.text += static_cast<char32_t>(cp);
  }
  return out;
}

Result<std::string> ObjectReader::ReadString(uint64_t address, size_t max_chars) {
  PYU_ASSIGN_OR_RETURN(StrText str, ReadStrText(address, max_chars));
  std::string text;
  text.reserve(str.text.size());
  for (char32_t c : str.text) AppendUtf8(text, c);
  if (str.truncated()) text += "...";
  return text;
}

Result<std::string> ObjectReader::ReadBytes(uint64_t address, size_t max_size) {
  if (!Aligned(address)) return MakeError(fmt::format("bad bytes pointer {:#x}", address));
  auto size = memory_.ReadValue<int64_t>(address + layout_.bytes.ob_size);
  if (!size) return UnreadableMemory(fmt::format("cannot read the bytes object at {:#x}", address));
  if (*size < 0 || static_cast<uint64_t>(*size) > max_size) {
    return MakeError(fmt::format("the bytes object at {:#x} has an implausible size {}", address,
                                 *size));
  }
  std::string data(*size, '\0');
  if (!memory_.Read(address + layout_.bytes.ob_sval, data.data(), data.size())) {
    return UnreadableMemory(
        fmt::format("cannot read the contents of the bytes object at {:#x}", address));
  }
  return data;
}

Result<IntDigits> ObjectReader::ReadIntDigits(uint64_t address, size_t max_digits) {
  const Layout::Long& l = layout_.long_object;
  if (!Aligned(address)) return MakeError(fmt::format("bad int pointer {:#x}", address));
  IntDigits out;
  if (layout_.int_object.ob_ival != kAbsent) {
    PYU_ASSIGN_OR_RETURN(uint64_t flags, TypeFlagsOf(address));
    if (flags & kIntSubclassFlag) return ReadPython2Int(address);
  }
  if (l.lv_tag != kAbsent) {  // 3.12+: digit count << 3 | sign (2: negative)
    auto tag = memory_.ReadValue<uint64_t>(address + l.lv_tag);
    if (!tag) return UnreadableMemory(fmt::format("cannot read the int at {:#x}", address));
    out.count = *tag >> 3;
    out.negative = (*tag & 3) == 2;
  } else {  // 3.11: ob_size, negative for a negative int
    auto size = memory_.ReadValue<int64_t>(address + l.ob_size);
    if (!size) return UnreadableMemory(fmt::format("cannot read the int at {:#x}", address));
    if (*size == INT64_MIN) {
      return MakeError(fmt::format("the int at {:#x} has an impossible size", address));
    }
    out.negative = *size < 0;
    out.count = static_cast<uint64_t>(out.negative ? -*size : *size);
  }
  if (out.count > max_digits) return out;
  out.digits.resize(out.count);
  if (out.count > 0 && !memory_.Read(address + l.ob_digit, out.digits.data(), out.count * 4)) {
    return UnreadableMemory(fmt::format("cannot read the digits of the int at {:#x}", address));
  }
  for (uint32_t digit : out.digits) {
    if (digit >> 30) return MakeError(fmt::format("the int at {:#x} has a digit out of range", address));
  }
  return out;
}

Result<IntDigits> ObjectReader::ReadPython2Int(uint64_t address) {
  auto value = memory_.ReadValue<int64_t>(address + layout_.int_object.ob_ival);
  if (!value) return UnreadableMemory(fmt::format("cannot read the int at {:#x}", address));
  IntDigits out;
  out.negative = *value < 0;
  // The magnitude of INT64_MIN too, in unsigned arithmetic.
  uint64_t magnitude = out.negative ? ~static_cast<uint64_t>(*value) + 1 : static_cast<uint64_t>(*value);
  for (; magnitude != 0; magnitude >>= 30) out.digits.push_back(magnitude & ((1u << 30) - 1));
  out.count = out.digits.size();
  return out;
}

Result<int64_t> ObjectReader::ReadInt(uint64_t address) {
  PYU_ASSIGN_OR_RETURN(IntDigits i, ReadIntDigits(address, 2));
  if (i.count > 2) return MakeError(fmt::format("the int at {:#x} exceeds 60 bits", address));
  int64_t value = 0;
  for (size_t k = i.digits.size(); k-- > 0;) value = (value << 30) | i.digits[k];
  return i.negative ? -value : value;
}

Result<uint64_t> ObjectReader::LookupStringKey(uint64_t dict_address, std::string_view key) {
  return RemoteCollections(*this).DictGetString(dict_address, key);
}

}  // namespace pyunwind

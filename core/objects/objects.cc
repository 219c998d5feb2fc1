#include "core/objects/objects.h"
#include "core/base/address.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

namespace pyunwind {
namespace {

}  // namespace

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

Result<std::string> ObjectReader::ReadString(uint64_t address, size_t max_chars) {
  const Layout::Unicode& u = layout_.unicode;
  if (!Aligned(address)) return MakeError(fmt::format("bad string pointer {:#x}", address));
  auto length = memory_.ReadValue<int64_t>(address + u.length);
  auto state = memory_.ReadValue<uint32_t>(address + u.state);
  if (!length || !state) return MakeError(fmt::format("cannot read the string at {:#x}", address));
  if (*length < 0 || *length > (int64_t{1} << 40)) {
    return MakeError(fmt::format("the string at {:#x} has an impossible length", address));
  }
  const uint32_t kind = (*state >> u.kind_shift) & 7;
  const bool compact = (*state >> u.compact_bit) & 1;
  const bool ascii = (*state >> u.ascii_bit) & 1;
  if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1)) {
    return MakeError(fmt::format("the string at {:#x} is not a compact string", address));
  }
  const size_t count = std::min<uint64_t>(*length, max_chars);
  const uint64_t data = address + (ascii ? u.ascii_data : u.compact_data);
  std::vector<uint8_t> raw(count * kind);
  if (!memory_.Read(data, raw.data(), raw.size())) {
    return MakeError(fmt::format("cannot read the text of the string at {:#x}", address));
  }
  std::string text;
  text.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t cp = 0;
    if (kind == 1) {
      cp = raw[i];
    } else if (kind == 2) {
      uint16_t unit;
      std::memcpy(&unit, &raw[i * 2], 2);
      cp = unit;
    } else {
      std::memcpy(&cp, &raw[i * 4], 4);
    }
    AppendUtf8(text, cp);
  }
  if (static_cast<uint64_t>(*length) > count) text += "...";
  return text;
}

Result<std::string> ObjectReader::ReadBytes(uint64_t address, size_t max_size) {
  if (!Aligned(address)) return MakeError(fmt::format("bad bytes pointer {:#x}", address));
  auto size = memory_.ReadValue<int64_t>(address + layout_.bytes.ob_size);
  if (!size) return MakeError(fmt::format("cannot read the bytes object at {:#x}", address));
  if (*size < 0 || static_cast<uint64_t>(*size) > max_size) {
    return MakeError(fmt::format("the bytes object at {:#x} has an implausible size {}", address,
                                 *size));
  }
  std::string data(*size, '\0');
  if (!memory_.Read(address + layout_.bytes.ob_sval, data.data(), data.size())) {
    return MakeError(fmt::format("cannot read the contents of the bytes object at {:#x}", address));
  }
  return data;
}

Result<int64_t> ObjectReader::ReadInt(uint64_t address) {
  const Layout::Long& l = layout_.long_object;
  if (!Aligned(address)) return MakeError(fmt::format("bad int pointer {:#x}", address));
  int64_t digit_count = 0;
  bool negative = false;
  if (l.lv_tag != kAbsent) {
    auto tag = memory_.ReadValue<uint64_t>(address + l.lv_tag);
    if (!tag) return MakeError(fmt::format("cannot read the int at {:#x}", address));
    digit_count = static_cast<int64_t>(*tag >> 3);
    negative = (*tag & 3) == 2;
  } else {
    auto size = memory_.ReadValue<int64_t>(address + l.ob_size);
    if (!size) return MakeError(fmt::format("cannot read the int at {:#x}", address));
    // -INT64_MIN overflows; any count past 2 is refused below anyway.
    if (*size < -2 || *size > 2) return MakeError(fmt::format("the int at {:#x} exceeds 60 bits", address));
    negative = *size < 0;
    digit_count = negative ? -*size : *size;
  }
  if (digit_count > 2) return MakeError(fmt::format("the int at {:#x} exceeds 60 bits", address));
  uint32_t digits[2] = {0, 0};
  if (!memory_.Read(address + l.ob_digit, digits, digit_count * sizeof(uint32_t))) {
    return MakeError(fmt::format("cannot read the digits of the int at {:#x}", address));
  }
  int64_t value = (int64_t{digits[1]} << 30) | digits[0];
  return negative ? -value : value;
}

Result<uint64_t> ObjectReader::LookupStringKey(uint64_t dict_address, std::string_view key) {
  // PyDictKeysObject (3.11-3.14): dk_refcnt, then one byte each of
  // log2_size, log2_index_bytes and kind; dk_nentries at 24, indices at 32.
  if (!Aligned(dict_address)) return MakeError("bad dict pointer");
  auto keys = memory_.ReadPointer(dict_address + layout_.dict.ma_keys);
  auto values = memory_.ReadPointer(dict_address + layout_.dict.ma_values);
  if (!keys || !values || !Aligned(*keys)) return MakeError("cannot read a dict");
  uint8_t header[32];
  if (!memory_.Read(*keys, header, sizeof header)) return MakeError("cannot read a dict's keys");
  const uint8_t log2_index_bytes = header[9];
  const uint8_t kind = header[10];
  int64_t entries;
  std::memcpy(&entries, header + 24, 8);
  if (log2_index_bytes > 30 || entries < 0 || static_cast<uint64_t>(entries) > kMaxDictEntries) {
    return MakeError("a dict's key table is not plausible");
  }
  const bool unicode_keys = kind != 0;
  const uint64_t entry_size = unicode_keys ? 16 : 24;
  const uint64_t first_entry = *keys + 32 + (uint64_t{1} << log2_index_bytes);
  std::vector<uint8_t> table(entries * entry_size);
  if (!memory_.Read(first_entry, table.data(), table.size())) {
    return MakeError("cannot read a dict's entries");
  }
  for (int64_t i = 0; i < entries; ++i) {
    const uint8_t* entry = table.data() + i * entry_size + (unicode_keys ? 0 : 8);
    uint64_t entry_key, entry_value;
    std::memcpy(&entry_key, entry, 8);
    std::memcpy(&entry_value, entry + 8, 8);
    if (entry_key == 0) continue;
    auto text = ReadString(entry_key, key.size() + 1);
    if (!text.ok() || *text != key) continue;
    if (*values != 0) {  // a split table keeps its values apart, in entry order
      auto value = memory_.ReadPointer(*values + 8 * i);
      if (!value) return MakeError("cannot read a split dict's value");
      return *value;
    }
    return entry_value;
  }
  return uint64_t{0};
}

Result<std::string> ObjectReader::TypeName(uint64_t object_address) {
  if (!Aligned(object_address)) return MakeError("bad object pointer");
  auto type = memory_.ReadPointer(object_address + layout_.object.ob_type);
  if (!type || !Aligned(*type)) return MakeError("cannot read an object's type");
  auto name = memory_.ReadPointer(*type + layout_.type.tp_name);
  if (!name || *name == 0) return MakeError("cannot read a type's name");
  char buffer[128];
  size_t length = 0;
  for (; length < sizeof buffer; ++length) {
    auto c = memory_.ReadValue<char>(*name + length);
    if (!c) return MakeError("cannot read a type's name");
    buffer[length] = *c;
    if (*c == '\0') break;
  }
  return std::string(buffer, length == sizeof buffer ? length : length);
}

}  // namespace pyunwind

#include "core/base/printable.h"

#include <cstdint>
#include <cstdio>

namespace pyunwind {
namespace {

void AppendEscape(std::string& out, const char* format, uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, static_cast<unsigned>(value));
  out += buffer;
}

// Length of the UTF-8 sequence that starts at text[i] and its code point, or
// 0 where the bytes are not valid UTF-8 (overlong, surrogate, out of range,
// or cut short).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  size_t length;
  uint32_t min;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, min = 0x80, code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, min = 0x800, code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3F);
  }
  if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    return 0;
  }
  return length;
}

bool IsFormatControl(uint32_t c) {
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x2028 ||
         c == 0x2029;
}

}  // namespace

std::string PrintableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendPrintable(out, text);
  return out;
}

void AppendPrintable(std::string& out, std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    // Most text is printable ASCII: append each run of it at once.
    size_t run = i;
    while (run < text.size() && text[run] >= 0x20 && text[run] < 0x7F) ++run;
    if (run > i) {
      out.append(text.substr(i, run - i));
      i = run;
      continue;
    }
    uint32_t c = 0;
    const size_t length = DecodeUtf8(text, i, c);
    if (length == 0) {
      AppendEscape(out, "\\x%02x", static_cast<uint8_t>(text[i]));
      ++i;
      continue;
    }
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
      AppendEscape(out, "\\x%02x", c);
    } else if (IsFormatControl(c)) {
      AppendEscape(out, "\\u%04x", c);
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
}

}  // namespace pyunwind

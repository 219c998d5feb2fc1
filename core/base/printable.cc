#include "core/base/printable.h"

#include <cstdint>
#include <cstdio>

#include "core/base/utf8.h"

namespace pyunwind {
namespace {

void AppendEscape(std::string& out, const char* format, uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, static_cast<unsigned>(value));
  out += buffer;
}

// The code points of general category Cf (Unicode 15), as inclusive ranges.
constexpr struct {
  uint32_t first, last;
} kFormatCharacters[] = {
    {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
    {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},
    {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x2064},   {0x2066, 0x206F},
    {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
    {0xE0020, 0xE007F},
};

}  // namespace

bool IsUnsafeCodePoint(uint32_t c) {
  if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) return true;  // C0, DEL, C1
  if (c < 0xAD) return false;
  if (c == 0x2028 || c == 0x2029) return true;  // line and paragraph separators
  for (const auto& range : kFormatCharacters) {
    if (c < range.first) return false;  // ascending
    if (c <= range.last) return true;
  }
  return false;
}

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
    if (!IsUnsafeCodePoint(c)) {
      out.append(text.substr(i, length));
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x100) {
      AppendEscape(out, "\\x%02x", c);
    } else if (c < 0x10000) {
      AppendEscape(out, "\\u%04x", c);
    } else {
      AppendEscape(out, "\\U%08x", c);
    }
    i += length;
  }
}

}  // namespace pyunwind

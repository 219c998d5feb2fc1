// The text of str and bytes reprs, as CPython writes them: the quote it
// picks, its escapes, and which characters str.isprintable() accepts.
#include "core/objects/repr_text.h"

#include <fmt/format.h>

#include "core/base/utf8.h"
#include "core/objects/objects.h"
#include "core/objects/values.h"

namespace pyunwind {
namespace {

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

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
void CutUtf8(std::string& text, size_t limit) {
  if (text.size() <= limit) return;
  size_t end = limit;
  while (end > 0 && (static_cast<uint8_t>(text[end]) & 0xC0) == 0x80) --end;
  text.resize(end);
}

std::string ValueFormatter::StrRepr(const std::u32string& text, bool truncated, bool ascii_only) {
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
    } else if (c < 0x7F || (!ascii_only && PrintableNonAscii(c))) {
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

}  // namespace pyunwind

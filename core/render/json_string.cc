#include "core/render/json_string.h"

#include <algorithm>
#include <cstdio>

#include "core/base/printable.h"
#include "core/base/utf8.h"

namespace pyunwind {
namespace {

void AppendUnicodeEscape(std::string& out, uint32_t unit) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(unit));
  out += buffer;
}

// Escapes the unsafe code points nlohmann::json's dump leaves as they are (DEL, C1, the
// separators and format characters) in the JSON text out[from...]. The library has escaped
// the C0 controls and replaced invalid UTF-8, and outside strings JSON is ASCII, so every
// code point at or above DEL found here is inside a string literal, where \uXXXX means it.
void EscapeUnsafe(std::string& out, size_t from) {
  const auto suspect = [](char c) { return static_cast<uint8_t>(c) >= 0x7F; };
  const auto first = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(from), out.end(), suspect);
  if (first == out.end()) return;
  const size_t start = static_cast<size_t>(first - out.begin());
  const std::string rest = out.substr(start);
  out.resize(start);
  for (size_t i = 0; i < rest.size();) {
    uint32_t c = 0;
    size_t length = DecodeUtf8(rest, i, c);
    if (length == 0) {
      c = 0xFFFD, length = 1;  // the library leaves none; if it did, never raw
      AppendUnicodeEscape(out, c);
    } else if (!IsUnsafeCodePoint(c)) {
      out.append(rest, i, length);
    } else if (c < 0x10000) {
      AppendUnicodeEscape(out, c);
    } else {
      AppendUnicodeEscape(out, 0xD800 + ((c - 0x10000) >> 10));
      AppendUnicodeEscape(out, 0xDC00 + ((c - 0x10000) & 0x3FF));
    }
    i += length;
  }
}

template <typename Json>
std::string Dump(const Json& value) {
  std::string out = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  EscapeUnsafe(out, 0);
  return out;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  // Names are nearly always printable ASCII with nothing to escape: copied as
  // they are. Anything else is left to the library's escaping, then ours.
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  const size_t from = out.size();
  out += nlohmann::json(std::string(text)).dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace);
  EscapeUnsafe(out, from);
}

void AppendJsonStrings(std::string& out, const std::vector<std::string>& strings) {
  out += '[';
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, strings[i]);
  }
  out += ']';
}

std::string DumpJson(const nlohmann::json& value) { return Dump(value); }
std::string DumpJson(const nlohmann::ordered_json& value) { return Dump(value); }

}  // namespace pyunwind

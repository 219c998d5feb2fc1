#include "core/render/json_string.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace pyunwind {

void AppendJsonString(std::string& out, std::string_view text) {
  // Names are nearly always printable ASCII with nothing to escape: copied as
  // they are. Anything else is left to the library's escaping.
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += nlohmann::json(std::string(text)).dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace);
}

}  // namespace pyunwind

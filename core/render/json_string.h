// JSON as pyunwind writes it: a string literal appended to a document being written as text
// (py-tasks --json over a million tasks is never built as a tree of JSON values), and a tree
// of values written out. Both escape what the text output escapes (core/base/printable.h):
// JSON that is printed to a terminal must not drive it either.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pyunwind {

// Appends `text` quoted and escaped as JSON; invalid UTF-8 from the target is
// replaced (U+FFFD), never thrown, as nlohmann::json's dump does, and every
// unsafe code point (IsUnsafeCodePoint: controls, DEL, separators, format
// characters such as bidi overrides) is written as \uXXXX (a surrogate pair
// above U+FFFF).
void AppendJsonString(std::string& out, std::string_view text);
// Appends `strings` as a JSON array, each escaped as AppendJsonString does.
void AppendJsonStrings(std::string& out, const std::vector<std::string>& strings);

// `value` as compact JSON, its strings escaped as AppendJsonString escapes them.
std::string DumpJson(const nlohmann::json& value);
std::string DumpJson(const nlohmann::ordered_json& value);

}  // namespace pyunwind

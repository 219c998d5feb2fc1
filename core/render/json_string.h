// A JSON string literal appended to a document being written as text (py-tasks
// --json over a million tasks is never built as a tree of JSON values).
#pragma once

#include <string>
#include <string_view>

namespace pyunwind {

// Appends `text` quoted and escaped as JSON; invalid UTF-8 from the target is
// replaced (U+FFFD), never thrown, exactly as nlohmann::json's dump does.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace pyunwind

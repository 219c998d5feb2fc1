// UTF-8 from code points: what the object reader decodes strings with, and what the Python
// tokenizer of the caret lines (core/pysource) rebuilds source text with; and code points
// from UTF-8, for the escaping of text the target chose (printable.h, JSON strings).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pyunwind {

// Appends the UTF-8 encoding of `code_point` (replacement character for invalid ones).
void AppendUtf8(std::string& out, uint32_t code_point);

// Length of the UTF-8 sequence that starts at text[i] and its code point, or 0 where the
// bytes are not valid UTF-8 (overlong, surrogate, out of range, or cut short).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t& code_point);

}  // namespace pyunwind

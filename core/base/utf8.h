// UTF-8 from code points: what the object reader decodes strings with, and what the Python
// tokenizer of the caret lines (core/pysource) rebuilds source text with.
#pragma once

#include <cstdint>
#include <string>

namespace pyunwind {

// Appends the UTF-8 encoding of `code_point` (replacement character for invalid ones).
void AppendUtf8(std::string& out, uint32_t code_point);

}  // namespace pyunwind

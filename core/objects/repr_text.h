// Helpers of the repr text shared inside core/objects.
#pragma once

#include <cstddef>
#include <string>

namespace pyunwind {

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
void CutUtf8(std::string& text, size_t limit);

}  // namespace pyunwind

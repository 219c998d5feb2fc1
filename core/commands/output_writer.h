// How a command with a large output hands it to the debugger before it returns.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace pyunwind {

// Takes a piece of a command's output, to print at once (CommandContext::write_output).
using OutputWriter = std::function<void(std::string_view)>;

// The size of the pieces a command hands to an OutputWriter: the text is written as it is
// made, in one buffer of this size that stays in the cache and in memory already touched,
// not one string of the whole output (hundreds of KB of fresh pages for a deep stack, which
// a debugger pays a fault for each; bench/README.md). The GDB script writes 64 KiB at a time.
inline constexpr size_t kOutputPieceBytes = size_t{64} << 10;

}  // namespace pyunwind

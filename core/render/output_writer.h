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
// py-bt hands over what waits at the end of a thread once it is this much: the debugger
// prints it while the next thread is read (gdb_bridge/worker_relay.h), and a piece costs the
// debugger a call, so not every small thread's text goes alone.
inline constexpr size_t kThreadEndPieceBytes = kOutputPieceBytes / 4;

}  // namespace pyunwind

// How a command with a large output hands it to the debugger before it returns.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/base/limits.h"

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

// What one command may print (core/base/limits.h): bytes and lines.
struct OutputLimit {
  uint64_t bytes = kMaxOutputBytesPerCommand;
  uint64_t lines = kMaxOutputLinesPerCommand;
};

// Counts a command's output against its OutputLimit. The makers of a large output (py-bt's
// text and JSON) ask Fits before each frame and stop adding once it is false; RunCommand
// counts whatever else passes (core/commands/commands.cc) and cuts text at a line end.
class OutputBudget {
 public:
  explicit OutputBudget(OutputLimit limit = {}) : limit_(limit) {}

  // Counts `text` as written.
  void Count(std::string_view text) {
    bytes_ += text.size();
    lines_ += static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  }
  // Whether `bytes` and `lines` more (on top of what was counted) stay within the limit;
  // once not, Exceeded() says which bound it was.
  bool Fits(uint64_t bytes, uint64_t lines) {
    if (bytes_ + bytes > limit_.bytes) {
      exceeded_bytes_ = true;
    } else if (lines_ + lines > limit_.lines) {
      exceeded_lines_ = true;
    }
    return !Exceeded();
  }
  bool Exceeded() const { return exceeded_bytes_ || exceeded_lines_; }
  // "more than N bytes" or "more than N lines": the bound that ran out.
  std::string Bound() const {
    return exceeded_lines_ && !exceeded_bytes_ ? "more than " + std::to_string(limit_.lines) + " lines"
                                               : "more than " + std::to_string(limit_.bytes) + " bytes";
  }
  // The warning a command that ran out ends with.
  std::string Reason() const {
    return "the output budget of one command ran out (" + Bound() +
           "): the rest is not shown...truncated";
  }
  const OutputLimit& limit() const { return limit_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t lines() const { return lines_; }

 private:
  OutputLimit limit_;
  uint64_t bytes_ = 0;
  uint64_t lines_ = 0;
  bool exceeded_bytes_ = false;
  bool exceeded_lines_ = false;
};

}  // namespace pyunwind

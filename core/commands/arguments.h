// The words of a command line: how both front-ends split it, and how every
// command reads a number from one word.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyunwind {

// Splits a command line as LLDB does for a command's arguments, so that GDB
// (which hands pyunwind the raw line) sees the words LLDB would: blanks
// separate words; '...' keeps everything literally; "..." keeps everything
// but a backslash before \ or ", which stands for that character; outside
// quotes a backslash makes the next character literal. Quoted parts join the
// word they touch (a"b c"d is one word); an unclosed quote runs to the end of
// the line. (LLDB itself evaluates `...` as an expression before pyunwind sees
// it; GDB has no such thing, so a backquote is an ordinary character here.)
std::vector<std::string> SplitCommandLine(std::string_view line);

// An option that takes a value, given as "--name VALUE" or "--name=VALUE":
// whether `arg` is `option` in either form.
bool IsOptionWithValue(std::string_view arg, std::string_view option);
// The value of the option at args[i] (IsOptionWithValue), moving `i` past a
// separate value; nullopt when the separate value is missing.
std::optional<std::string> TakeOptionValue(const std::vector<std::string>& args, size_t& i,
                                           std::string_view option);

// The largest count, frame or line number a command takes from a word.
inline constexpr uint64_t kMaxWordNumber = 999'999'999;

// `text` as an unsigned number in `base` (10 or 16; a 0x prefix is allowed in
// 16) no greater than `max`: digits only, no sign, no blanks.
std::optional<uint64_t> ParseUnsigned(std::string_view text, uint64_t max = UINT64_MAX,
                                      int base = 10);

}  // namespace pyunwind

// Turning what LLDB hands a command into what the core takes. No LLDB
// dependency, so it is tested on its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pyunwind_lldb {

// LLDB has already split the command line and removed its quotes: `argv` is
// the argument list (without the command's name), ending with a null pointer.
// A null `argv` means no arguments.
std::vector<std::string> ArgvToVector(char** argv);

// The single line LLDB prints after "error: " for a failed command: the core's
// text without a leading "error: " (LLDB adds its own) and without the final
// newline. Never empty.
std::string ErrorLine(std::string_view text);

}  // namespace pyunwind_lldb

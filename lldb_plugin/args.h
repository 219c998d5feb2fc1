// Turning what LLDB hands a command into what the core takes. No LLDB
// dependency, so it is tested on its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pyunwind_lldb {

// LLDB has already split the command line and removed its quotes (its
// plugin API gives no raw line; GDB's raw line is split by the core's
// SplitCommandLine, which follows LLDB's rules): `argv` is the argument list
// (without the command's name), ending with a null pointer. A null `argv`
// means no arguments.
std::vector<std::string> ArgvToVector(char** argv);

}  // namespace pyunwind_lldb

// py-print NAME: the repr of one name seen from the selected Python frame,
// looked up as Python looks it up there: the frame's locals (arguments,
// locals, cells and free variables; a module's or class body's namespace),
// then its globals, then its builtins.
#pragma once

#include <string>
#include <vector>

#include "core/commands/commands.h"

namespace pyunwind {

extern const char kPyPrintHelp[];
CommandOutput RunPyPrint(const std::vector<std::string>& args, CommandContext& context);

}  // namespace pyunwind

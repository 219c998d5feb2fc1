// py-print NAME: the repr of one name seen from the selected Python frame,
// looked up as Python looks it up there: the frame's locals (arguments,
// locals, cells and free variables; a module's or class body's namespace),
// then its globals, then its builtins.
#pragma once

#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {

CommandOutput RunPyPrint(const ParsedArgs& args, CommandContext& context);

}  // namespace pyunwind

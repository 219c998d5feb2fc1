// py-bt and py-bt-full: the Python stack of the selected thread, or of every thread, as
// Python's tracebacks print it or as JSON (core/render/format.h).
#pragma once

#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {

CommandOutput RunPyBt(const ParsedArgs& args, CommandContext& context);
// py-bt --locals.
CommandOutput RunPyBtFull(const ParsedArgs& args, CommandContext& context);

}  // namespace pyunwind

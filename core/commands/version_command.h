// `pyunwind version`: which pyunwind (release and git revision), in which
// debugger, and which CPython versions and builds it reads.
#pragma once

#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {

CommandOutput RunVersion(const ParsedArgs& args, const CommandContext& context);

}  // namespace pyunwind

// `pyunwind version`: which pyunwind (release and git revision), in which
// debugger, and which CPython versions and builds it reads.
#pragma once

#include <string>
#include <vector>

#include "core/commands/commands.h"

namespace pyunwind {

extern const char kVersionHelp[];
CommandOutput RunVersion(const std::vector<std::string>& args, const CommandContext& context);

}  // namespace pyunwind

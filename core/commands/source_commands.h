// py-locals and py-list: the arguments and locals, and the source lines, of
// the selected Python frame (frame 0 of the selected thread, the frame
// py-up / py-down / py-frame selected, or --frame N).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "core/commands/options.h"
#include "core/base/result.h"
#include "core/pysource/source_policy.h"
#include "core/target/target.h"

namespace pyunwind {

CommandOutput RunPyLocals(const ParsedArgs& args, CommandContext& context);
CommandOutput RunPyList(const ParsedArgs& args, CommandContext& context);

// GDB's py-list output for lines [start, end] (1-based, closed; start below 1
// counts as 1) of the file at `path`, `current` marked with '>': each line as
// '%4s    %s' of its number and text. An error when the file cannot be read.
Result<std::string> ListSource(const std::string& path, int start, int end, int current);

// What a code object's file name is resolved against (SourcePolicy): `target`'s live process
// on this host or its core's user, and the --source-dir directories.
SourceOrigin SourceOriginOf(Target& target, std::vector<std::string> directories = {});

}  // namespace pyunwind

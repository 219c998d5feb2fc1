// py-waits: what each thread and pending asyncio task of the selected interpreter (--all:
// every interpreter) waits for, who can release it, and the deadlocks among them, as text
// or JSON (core/waits, core/render/waits_format.h).
#pragma once

#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {

// The py-waits command (command_table.cc).
CommandOutput RunPyWaits(const ParsedArgs& args, CommandContext& context);

}  // namespace pyunwind

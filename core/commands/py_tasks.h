// py-tasks: the asyncio tasks CollectAsyncTasks reads, shown as a table, as the
// await tree, as each running task's async call chain, as groups (--summary)
// or as JSON (core/render/tasks_format.h); every view shows the tasks SelectTasks
// keeps (core/render/tasks_view.h).
#pragma once

#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {

// The py-tasks command (command_table.cc).
CommandOutput RunPyTasks(const ParsedArgs& args, CommandContext& context);

}  // namespace pyunwind

// py-tasks: the asyncio tasks CollectAsyncTasks reads, shown as a table, as the
// await tree, as each running task's async call chain, or as JSON.
#pragma once

#include <string>
#include <vector>

#include "core/asyncio/asyncio.h"
#include "core/commands/commands.h"

namespace pyunwind {

std::string FormatTasksTable(const AsyncSnapshot& snapshot);
std::string FormatTasksTree(const AsyncSnapshot& snapshot);
std::string FormatRunningTasks(const AsyncSnapshot& snapshot);
std::string FormatTasksJson(const AsyncSnapshot& snapshot);

// The py-tasks command (see AllCommands()).
extern const char kPyTasksHelp[];
CommandOutput RunPyTasks(const std::vector<std::string>& args, CommandContext& context);

}  // namespace pyunwind

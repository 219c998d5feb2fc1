// py-tasks: the asyncio tasks CollectAsyncTasks reads, shown as a table, as the
// await tree, as each running task's async call chain, as groups (--summary)
// or as JSON (core/render/tasks_format.h); every view shows the tasks SelectTasks
// keeps (core/render/tasks_view.h).
#pragma once

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/commands/commands.h"
#include "core/render/tasks_view.h"

namespace pyunwind {

Result<PyTasksOptions> ParsePyTasks(const std::vector<std::string>& args);

// The py-tasks command (see AllCommands()).
extern const char kPyTasksHelp[];
CommandOutput RunPyTasks(const std::vector<std::string>& args, CommandContext& context);

}  // namespace pyunwind

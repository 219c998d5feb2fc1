// py-tasks: the asyncio tasks CollectAsyncTasks reads, shown as a table, as the
// await tree, as each running task's async call chain, as groups (--summary)
// or as JSON; every view shows the tasks SelectTasks keeps (tasks_view.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/asyncio/asyncio.h"
#include "core/commands/commands.h"
#include "core/commands/tasks_view.h"

namespace pyunwind {

std::string FormatTasksTable(const AsyncSnapshot& snapshot, const TaskSelection& selection);
std::string FormatTasksTree(const AsyncSnapshot& snapshot, const TaskSelection& selection);
std::string FormatRunningTasks(const AsyncSnapshot& snapshot, const TaskSelection& selection);
std::string FormatTasksSummary(const AsyncSnapshot& snapshot, const TaskSelection& selection,
                               const std::vector<TaskGroupSummary>& groups, size_t limit);
// `groups`: null unless --summary; `stats` (--stats): called last, when the
// rest of the document is written, for the "stats" object (its time counts
// the writing too). With `write`, the document goes to it in pieces of about
// kOutputPieceBytes as it is written and the rest is returned: 100,000 tasks
// are 44 MB of JSON.
std::string FormatTasksJson(const AsyncSnapshot& snapshot, const TaskSelection& selection,
                            const std::vector<TaskGroupSummary>* groups,
                            const std::function<std::string()>& stats = {},
                            const OutputWriter& write = {});

// The py-tasks command (see AllCommands()).
extern const char kPyTasksHelp[];
CommandOutput RunPyTasks(const std::vector<std::string>& args, CommandContext& context);

}  // namespace pyunwind

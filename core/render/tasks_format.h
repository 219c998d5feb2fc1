// py-tasks' views of the tasks SelectTasks keeps (tasks_view.h): a table, the await tree,
// each running task's async call chain, groups (--summary), or JSON.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/asyncio/asyncio.h"
#include "core/asyncio/await_cycles.h"
#include "core/render/output_writer.h"
#include "core/render/tasks_view.h"

namespace pyunwind {

std::string FormatTasksTable(const AsyncSnapshot& snapshot, const TaskSelection& selection);
// The tree, under the await cycles among the selected tasks (FindAwaitCycles), if any.
std::string FormatTasksTree(const AsyncSnapshot& snapshot, const TaskSelection& selection,
                            const AwaitCycles& cycles);
std::string FormatRunningTasks(const AsyncSnapshot& snapshot, const TaskSelection& selection);
std::string FormatTasksSummary(const AsyncSnapshot& snapshot, const TaskSelection& selection,
                               const std::vector<TaskGroupSummary>& groups, size_t limit);
// `cycles`: FindAwaitCycles of the selected tasks. `groups`: null unless --summary; `stats` (--stats): called last, when the
// rest of the document is written, for the "stats" object (its time counts
// the writing too). With `write`, the document goes to it in pieces of about
// kOutputPieceBytes as it is written and the rest is returned: 100,000 tasks
// are 44 MB of JSON.
std::string FormatTasksJson(const AsyncSnapshot& snapshot, const TaskSelection& selection,
                            const AwaitCycles& cycles,
                            const std::vector<TaskGroupSummary>* groups,
                            const std::function<std::string()>& stats = {},
                            const OutputWriter& write = {});

}  // namespace pyunwind

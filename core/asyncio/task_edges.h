// Who awaits whom, from what memory shows: a task's fut_waiter being a task
// ("await"), a _GatheringFuture's _children ("gather"), a TaskGroup's
// done-callback and _parent_task ("taskgroup"), and on 3.14+ the task's own
// awaited_by ("awaited_by").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "core/asyncio/task_reader.h"

namespace pyunwind {

// Fills AsyncTask::awaited_by; `index` maps each task's address to its
// position in `tasks`.
void AddTaskEdges(TaskReader& reader, std::vector<AsyncTask>& tasks,
                  const std::map<uint64_t, size_t>& index);

}  // namespace pyunwind

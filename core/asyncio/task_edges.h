// Who awaits whom, from what memory shows: a task's fut_waiter being a task
// ("await"), a _GatheringFuture's _children ("gather"), a TaskGroup's
// done-callback and _parent_task ("taskgroup"), and on 3.14+ the task's own
// awaited_by ("awaited_by").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/asyncio/task_reader.h"

namespace pyunwind {

// Fills AsyncTask::awaited_by of `snapshot.tasks` (ordered by address). A
// gather of gathers gives each task of the inner gathers a "gather" edge to
// the task that awaits the outer one.
void AddTaskEdges(TaskReader& reader, AsyncSnapshot& snapshot);

}  // namespace pyunwind

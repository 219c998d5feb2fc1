// Where a target's asyncio objects keep what py-tasks reads: its version's
// TaskObj facts (core/layout), completed on 3.14+ by what the target itself
// states (_AsyncioDebug: the task's name, coroutine, awaiters and the task
// lists of threads and interpreters).
#pragma once

#include <cstdint>

#include "core/base/result.h"
#include "core/layout/layout.h"
#include "core/target/memory.h"

namespace pyunwind {

struct AsyncioLayout {
  Layout::Task task;
  int32_t task_awaited_by = kAbsent;         // 3.14+
  int32_t task_awaited_by_is_set = kAbsent;  // 3.14+
  // 3.14+: the llist_node through which the task lists link their tasks.
  // Absent: tasks are found through the asyncio package's registry.
  int32_t task_node = kAbsent;
  int32_t tstate_running_loop = kAbsent;  // _PyThreadStateImpl (3.13: table, 3.14+: _AsyncioDebug)
  int32_t tstate_running_task = kAbsent;  // _PyThreadStateImpl
  int32_t tstate_tasks_head = kAbsent;
  int32_t interp_tasks_head = kAbsent;  // PyInterpreterState
  // Where the task offsets came from, for -v: the version's layout, or 3.14+'s
  // _AsyncioDebug block and how it was found.
  std::string source;
};

Result<AsyncioLayout> AsyncioLayoutFor(const Layout& layout, RemoteMemory& memory);

}  // namespace pyunwind

// Finding the tasks: on 3.14+ the per-thread and per-interpreter task lists
// of the _asyncio module; on 3.11-3.13 the registry the asyncio package
// keeps (asyncio.tasks' _scheduled_tasks / _all_tasks weak set,
// _eager_tasks, _current_tasks), read through sys.modules; on 3.6 the _asyncio
// module's C statics all_tasks and current_tasks, found by its symbol table.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/asyncio/task_reader.h"

namespace pyunwind {

struct TaskCandidates {
  bool asyncio_imported = false;
  std::vector<uint64_t> objects;  // maybe tasks, maybe repeated
  std::unordered_map<uint64_t, uint64_t> list_thread;  // task -> native id of the list's thread
};

// Also fills `reader.known` from sys.modules. `current_only`: only the task
// each event loop is running (asyncio.tasks._current_tasks; on 3.14+ each
// thread's running task), not the whole registry: py-bt's cheap question.
TaskCandidates FindTaskCandidates(TaskReader& reader, const AsyncioLayout& a,
                                  const Snapshot& threads, bool current_only = false);

}  // namespace pyunwind

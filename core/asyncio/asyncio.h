// asyncio tasks of the target: every task, its coroutine stack, who awaits
// whom, and the task each thread's event loop is running. The parts, by
// concept: where tasks keep their fields (asyncio_layout.h,
// asyncio_debug.h), finding them (task_discovery.h), reading one
// (task_reader.h), who awaits whom (task_edges.h), which thread runs which
// (running_tasks.h, also AddRunningTasks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

struct TaskEdge {
  uint64_t awaiter = 0;  // the task that waits
  std::string kind;      // "await", "gather", "taskgroup", "awaited_by" (3.14+, kind unknown)
};

struct AsyncTask {
  uint64_t address = 0;
  std::string name;
  std::string state;  // "pending", "cancelled", "finished"
  std::optional<uint64_t> thread_native_id;
  bool running = false;  // its coroutine is executing on a thread right now
  std::vector<Frame> coroutine_stack;  // innermost first
  std::vector<TaskEdge> awaited_by;
  uint64_t loop = 0;
  uint64_t coroutine = 0;
  uint64_t fut_waiter = 0;
};

struct AsyncSnapshot {
  PythonInfo python;
  bool asyncio_imported = false;
  std::vector<AsyncTask> tasks;  // ordered by address
  std::vector<std::string> warnings;
};

// Reads every task. `threads` is the thread walk of the same target (for the
// running task and which thread runs which loop).
Result<AsyncSnapshot> CollectAsyncTasks(ObjectReader& objects, CodeCache& codes,
                                        const Snapshot& threads);

// py-bt: names on each thread the task its event loop is running
// (Thread::running_task, status "running_task"). Costs one lookup of
// sys.modules['asyncio'] per interpreter when asyncio is not imported; reads
// the tasks (CollectAsyncTasks) only when it is. Never fails: what cannot be
// read leaves the threads as they are.
void AddRunningTasks(ObjectReader& objects, CodeCache& codes, Snapshot& threads);

}  // namespace pyunwind

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
#include <unordered_map>
#include <vector>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

struct TaskEdge {
  uint64_t awaiter = 0;  // the task that waits
  const char* kind = "";  // "await", "gather", "taskgroup", "awaited_by" (3.14+, kind unknown)
};

// One coroutine of a task's await chain. Its names are read once per code
// object, into AsyncSnapshot::codes: a million tasks share a few hundred.
struct CoroutineFrame {
  uint64_t code_address = 0;
  uint64_t frame_address = 0;
  std::optional<int> line;
};

enum class TaskState : uint8_t { kPending, kCancelled, kFinished, kUnknown };
// "pending", "cancelled", "finished", "unknown" (the JSON's words).
const char* TaskStateName(TaskState state);

struct AsyncTask {
  uint64_t address = 0;
  std::string name;
  TaskState state = TaskState::kUnknown;
  bool running = false;  // its coroutine is executing on a thread right now
  std::optional<uint64_t> thread_native_id;
  // Innermost first. A chain deeper than kMaxCoroutineDepth keeps both ends:
  // `coroutines_cut` coroutines were left out after the innermost half.
  std::vector<CoroutineFrame> coroutine_stack;
  size_t coroutines_cut = 0;
  size_t cut_at = 0;  // index in coroutine_stack before which the gap lies
  std::vector<TaskEdge> awaited_by;
  uint64_t loop = 0;
  uint64_t coroutine = 0;
  uint64_t fut_waiter = 0;

  bool done() const { return state == TaskState::kCancelled || state == TaskState::kFinished; }
};

struct AsyncSnapshot {
  PythonInfo python;
  bool asyncio_imported = false;
  std::vector<AsyncTask> tasks;  // ordered by address
  std::unordered_map<uint64_t, CodeNames> codes;  // every code object of a coroutine_stack
  std::vector<std::string> warnings;
  std::string layout_source;  // AsyncioLayout::source; empty when no layout was found
  // Each thread that records a running event loop (what asyncio.get_running_loop()
  // returns there), in thread order: tasks of that loop belong to that thread.
  struct ThreadLoop {
    uint64_t thread_native_id = 0;
    uint64_t loop = 0;
  };
  std::vector<ThreadLoop> running_loops;

  // The task at `address`, or null.
  const AsyncTask* Find(uint64_t address) const;
};

// Reads every task. `threads` is the thread walk of the same target (for the
// running task and which thread runs which loop).
// `running_only`: only the tasks event loops are running now, without
// awaiters (what py-bt names), at the cost of a few reads however many tasks
// there are.
Result<AsyncSnapshot> CollectAsyncTasks(ObjectReader& objects, CodeCache& codes,
                                        const Snapshot& threads, bool running_only = false);

// py-bt: names on each thread the task its event loop is running
// (Thread::running_task, status "running_task"). Costs one lookup of
// sys.modules['asyncio'] per interpreter when asyncio is not imported; reads
// only the running tasks (CollectAsyncTasks, running_only) when it is. Never fails: what cannot be
// read leaves the threads as they are.
void AddRunningTasks(ObjectReader& objects, CodeCache& codes, Snapshot& threads);

// Whether sys.modules of `interp` has 'asyncio' (false where it cannot be read).
bool AsyncioImported(ObjectReader& objects, const Interpreter& interp);

}  // namespace pyunwind

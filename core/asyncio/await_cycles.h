// Await cycles: tasks each awaiting the next, the last awaiting the first, so that none can
// finish. `python -m asyncio pstree` reports them instead of a tree (Lib/asyncio/tools.py);
// py-tasks --tree lists them above its tree and --json in "await_cycles".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/asyncio/asyncio.h"

namespace pyunwind {

// Cycles listed, then counted; tasks listed of one cycle.
inline constexpr size_t kMaxAwaitCycles = 32;
inline constexpr size_t kMaxAwaitCycleTasks = 64;

struct AwaitCycle {
  // Each awaits the next, the last the first; the first kMaxAwaitCycleTasks of `length`.
  std::vector<const AsyncTask*> tasks;
  size_t length = 0;
};

struct AwaitCycles {
  std::vector<AwaitCycle> listed;  // at most kMaxAwaitCycles
  size_t not_listed = 0;
};

// The cycles of the await graph among `tasks` (edges: AsyncTask::awaited_by, any kind), as
// pstree's depth-first search finds them: one per edge that leads back to a task on the path,
// from the task it leads to. Each cycle once; without recursion, in time linear in the graph.
AwaitCycles FindAwaitCycles(const std::vector<const AsyncTask*>& tasks);

// What the bounds left out, one warning each.
std::vector<std::string> AwaitCycleWarnings(const AwaitCycles& cycles);

}  // namespace pyunwind

#include "core/asyncio/task_edges.h"

#include <fmt/format.h>

#include <unordered_map>

namespace pyunwind {
namespace {

// Gathers nested deeper than this are not followed (a warning says so).
constexpr int kMaxGatherNesting = 64;

}  // namespace

void AddTaskEdges(TaskReader& reader, AsyncSnapshot& snapshot) {
  RemoteCollections& c = reader.collections();
  std::vector<AsyncTask>& tasks = snapshot.tasks;
  auto add_edge = [&](uint64_t awaited, uint64_t awaiter, const char* kind) {
    const AsyncTask* found = snapshot.Find(awaited);
    if (!found || !snapshot.Find(awaiter) || awaited == awaiter) return;
    auto& edges = tasks[static_cast<size_t>(found - tasks.data())].awaited_by;
    for (const TaskEdge& e : edges) {
      if (e.awaiter == awaiter) return;
    }
    edges.push_back({awaiter, kind});
  };
  // The tasks a gathering future waits for, through nested gathers.
  std::vector<uint64_t> gathered;
  std::vector<std::pair<uint64_t, int>> pending;  // (future, nesting)
  for (const AsyncTask& task : tasks) {
    if (task.fut_waiter == 0) continue;
    if (snapshot.Find(task.fut_waiter)) {
      add_edge(task.fut_waiter, task.address, "await");
      continue;
    }
    if (!reader.IsA(task.fut_waiter, reader.known.gathering, "_GatheringFuture")) continue;
    gathered.clear();
    pending.assign(1, {task.fut_waiter, 0});
    size_t visited = 0;
    while (!pending.empty()) {
      auto [future, nesting] = pending.back();
      pending.pop_back();
      if (++visited > kMaxTasks) break;
      auto children = c.InstanceAttribute(future, "_children");
      if (!children.ok()) {
        reader.Warn(fmt::format("task {}: gather: {}", task.name, children.error().message));
        continue;
      }
      if (*children == 0) continue;
      auto items = c.ListItems(*children, kMaxTasks);
      if (!items.ok()) {
        reader.Warn(fmt::format("task {}: gather: {}", task.name, items.error().message));
        continue;
      }
      for (uint64_t child : *items) {
        if (snapshot.Find(child)) {
          gathered.push_back(child);
        } else if (reader.IsA(child, reader.known.gathering, "_GatheringFuture")) {
          if (nesting + 1 >= kMaxGatherNesting) {
            reader.Warn(fmt::format("task {}: gathers nested more than {} deep: the inner ones "
                                    "are not followed...truncated", task.name, kMaxGatherNesting));
            continue;
          }
          pending.push_back({child, nesting + 1});
        }
      }
    }
    for (uint64_t child : gathered) add_edge(child, task.address, "gather");
  }
  // TaskGroup children: a done-callback bound to TaskGroup._on_task_done.
  std::unordered_map<uint64_t, bool> is_on_task_done;  // function -> its qualname is that
  for (const AsyncTask& task : tasks) {
    for (uint64_t callback : reader.Callbacks(task.address)) {
      if (!reader.IsA(callback, reader.known.method, "method")) continue;
      auto method = c.BoundMethod(callback);
      if (!method.ok()) continue;
      auto known = is_on_task_done.find(method->first);
      if (known == is_on_task_done.end()) {
        auto qualname = c.FunctionQualname(method->first);
        known = is_on_task_done
                    .emplace(method->first,
                             qualname.ok() && *qualname == "TaskGroup._on_task_done")
                    .first;
      }
      if (!known->second) continue;
      auto parent = c.InstanceAttribute(method->second, "_parent_task");
      if (parent.ok() && *parent) add_edge(task.address, *parent, "taskgroup");
    }
  }
  for (const AsyncTask& task : tasks) {
    for (uint64_t awaiter : reader.AwaitedBy(task.address)) {
      add_edge(task.address, awaiter, "awaited_by");
    }
  }
}

}  // namespace pyunwind

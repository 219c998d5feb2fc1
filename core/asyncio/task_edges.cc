#include "core/asyncio/task_edges.h"

#include <fmt/format.h>

#include <set>
#include <utility>

namespace pyunwind {

void AddTaskEdges(TaskReader& reader, std::vector<AsyncTask>& tasks,
                  const std::map<uint64_t, size_t>& index) {
  RemoteCollections& c = reader.collections();
  std::set<std::pair<uint64_t, uint64_t>> have;  // (awaited, awaiter)
  auto add_edge = [&](uint64_t awaited, uint64_t awaiter, const char* kind) {
    auto it = index.find(awaited);
    if (it == index.end() || !index.count(awaiter) || awaited == awaiter) return;
    if (!have.insert({awaited, awaiter}).second) return;
    tasks[it->second].awaited_by.push_back({awaiter, kind});
  };
  for (const AsyncTask& task : tasks) {
    if (task.fut_waiter == 0) continue;
    if (index.count(task.fut_waiter)) {
      add_edge(task.fut_waiter, task.address, "await");
      continue;
    }
    if (reader.IsA(task.fut_waiter, reader.known.gathering, "_GatheringFuture")) {
      auto children = c.InstanceAttribute(task.fut_waiter, "_children");
      if (!children.ok()) {
        reader.Warn(fmt::format("task {}: gather: {}", task.name, children.error().message));
        continue;
      }
      if (*children == 0) continue;
      auto items = c.ListItems(*children, kMaxTasks);
      if (!items.ok()) continue;
      for (uint64_t child : *items) add_edge(child, task.address, "gather");
    }
  }
  for (const AsyncTask& task : tasks) {
    for (uint64_t callback : reader.Callbacks(task.address)) {
      if (!reader.IsA(callback, reader.known.method, "method")) continue;
      auto method = c.BoundMethod(callback);
      if (!method.ok()) continue;
      auto qualname = c.FunctionQualname(method->first);
      if (!qualname.ok() || *qualname != "TaskGroup._on_task_done") continue;
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

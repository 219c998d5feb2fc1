#include "core/asyncio/await_cycles.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>

namespace pyunwind {
namespace {

constexpr size_t kNotOnPath = ~size_t{0};

// awaits[i]: the positions of the tasks task i awaits, each once, in order.
std::vector<std::vector<size_t>> AwaitEdges(const std::vector<const AsyncTask*>& tasks) {
  std::unordered_map<uint64_t, size_t> position;
  position.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) position.emplace(tasks[i]->address, i);
  std::vector<std::vector<size_t>> awaits(tasks.size());
  for (size_t awaited = 0; awaited < tasks.size(); ++awaited) {
    for (const TaskEdge& edge : tasks[awaited]->awaited_by) {
      auto awaiter = position.find(edge.awaiter);
      if (awaiter != position.end()) awaits[awaiter->second].push_back(awaited);
    }
  }
  // A task awaited through two edges (3.14's awaited_by beside fut_waiter) closes one cycle.
  for (std::vector<size_t>& edges : awaits) {
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  }
  return awaits;
}

}  // namespace

AwaitCycles FindAwaitCycles(const std::vector<const AsyncTask*>& tasks) {
  AwaitCycles cycles;
  const std::vector<std::vector<size_t>> awaits = AwaitEdges(tasks);
  enum Color : uint8_t { kWhite, kGrey, kBlack };
  std::vector<Color> color(tasks.size(), kWhite);
  std::vector<size_t> on_path(tasks.size(), kNotOnPath);  // index in `path`
  std::vector<size_t> path;
  std::vector<std::pair<size_t, size_t>> stack;  // (task, next edge)
  auto enter = [&](size_t task) {
    color[task] = kGrey;
    on_path[task] = path.size();
    path.push_back(task);
    stack.push_back({task, 0});
  };
  for (size_t root = 0; root < tasks.size(); ++root) {
    if (color[root] != kWhite) continue;
    enter(root);
    while (!stack.empty()) {
      auto& [task, next] = stack.back();
      if (next == awaits[task].size()) {
        color[task] = kBlack;
        on_path[task] = kNotOnPath;
        path.pop_back();
        stack.pop_back();
        continue;
      }
      const size_t awaited = awaits[task][next++];
      if (color[awaited] == kWhite) {
        enter(awaited);  // `task` and `next` refer into `stack`: not used past this point
      } else if (color[awaited] == kGrey) {
        if (cycles.listed.size() == kMaxAwaitCycles) {
          ++cycles.not_listed;
          continue;
        }
        AwaitCycle cycle;
        cycle.length = path.size() - on_path[awaited];
        const size_t listed = std::min(cycle.length, kMaxAwaitCycleTasks);
        for (size_t i = 0; i < listed; ++i) {
          cycle.tasks.push_back(tasks[path[on_path[awaited] + i]]);
        }
        cycles.listed.push_back(std::move(cycle));
      }
    }
  }
  return cycles;
}

std::vector<std::string> AwaitCycleWarnings(const AwaitCycles& cycles) {
  std::vector<std::string> warnings;
  for (const AwaitCycle& cycle : cycles.listed) {
    if (cycle.tasks.size() < cycle.length) {
      warnings.push_back(fmt::format("an await cycle of {} tasks: the first {} are listed",
                                     cycle.length, cycle.tasks.size()));
    }
  }
  if (cycles.not_listed) {
    warnings.push_back(fmt::format("{} more await cycle{} not listed (the first {} are)",
                                   cycles.not_listed, cycles.not_listed == 1 ? "" : "s",
                                   kMaxAwaitCycles));
  }
  return warnings;
}

}  // namespace pyunwind

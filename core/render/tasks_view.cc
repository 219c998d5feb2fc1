#include "core/render/tasks_view.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>

namespace pyunwind {
namespace {

bool Keeps(StateFilter filter, const AsyncTask& task) {
  switch (filter) {
    case StateFilter::kLive: return !task.done();
    case StateFilter::kPending: return !task.done() && !task.running;
    case StateFilter::kRunning: return task.running;
    case StateFilter::kDone: return task.done();
    case StateFilter::kAll: return true;
  }
  return true;
}

}  // namespace

std::string_view StateWord(const AsyncTask& task) {
  return task.running ? "running" : TaskStateName(task.state);
}

TaskSelection SelectTasks(const AsyncSnapshot& snapshot, const PyTasksOptions& options) {
  TaskSelection out;
  out.read = snapshot.tasks.size();
  for (const AsyncTask& task : snapshot.tasks) {
    if (options.name_glob && fnmatch(options.name_glob->c_str(), task.name.c_str(), 0) != 0) {
      continue;
    }
    if (!Keeps(options.states, task)) {
      if (options.states == StateFilter::kLive) ++out.done_hidden;
      continue;
    }
    ++out.matched;
    if (options.limit && out.tasks.size() >= options.limit) {
      ++out.cut_by_limit;
      continue;
    }
    out.tasks.push_back(&task);
  }
  return out;
}

std::vector<TaskGroupSummary> SummarizeTasks(const std::vector<const AsyncTask*>& tasks) {
  // Key: the state word, then the code addresses outermost first.
  std::map<std::pair<std::string_view, std::vector<uint64_t>>, TaskGroupSummary> groups;
  std::vector<uint64_t> stack;
  for (const AsyncTask* task : tasks) {
    stack.clear();
    for (auto it = task->coroutine_stack.rbegin(); it != task->coroutine_stack.rend(); ++it) {
      stack.push_back(it->code_address);
    }
    auto [it, added] = groups.try_emplace({StateWord(*task), stack});
    TaskGroupSummary& group = it->second;
    if (added) {
      group.state = StateWord(*task);
      group.stack = stack;
    }
    ++group.count;
    if (group.examples.size() < kSummaryExamples) group.examples.push_back(task);
  }
  std::vector<TaskGroupSummary> out;
  out.reserve(groups.size());
  for (auto& [key, group] : groups) out.push_back(std::move(group));
  std::stable_sort(out.begin(), out.end(), [](const TaskGroupSummary& a, const TaskGroupSummary& b) {
    return a.count > b.count;
  });
  return out;
}

}  // namespace pyunwind

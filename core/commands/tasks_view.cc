#include "core/commands/tasks_view.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <map>

#include "core/commands/arguments.h"

namespace pyunwind {
namespace {

Result<std::string> OptionValue(const std::vector<std::string>& args, size_t& i,
                                std::string_view option) {
  std::optional<std::string> value = TakeOptionValue(args, i, option);
  if (!value) return BadArgument(fmt::format("py-tasks: {} needs a value", option));
  return *std::move(value);
}

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

Result<PyTasksOptions> ParsePyTasks(const std::vector<std::string>& args) {
  PyTasksOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--json") {
      options.json = true;
    } else if (arg == "--tree") {
      options.tree = true;
    } else if (arg == "--running") {
      options.running = true;
    } else if (arg == "--summary") {
      options.summary = true;
    } else if (arg == "--stats") {
      options.stats = true;
    } else if (arg == "--verbose" || arg == "-v") {
      options.verbose = true;
    } else if (arg == "--all") {
      options.states = StateFilter::kAll;
    } else if (IsOptionWithValue(arg, "--name")) {
      PYU_ASSIGN_OR_RETURN(std::string glob, OptionValue(args, i, "--name"));
      options.name_glob = glob;
    } else if (IsOptionWithValue(arg, "--state")) {
      PYU_ASSIGN_OR_RETURN(std::string state, OptionValue(args, i, "--state"));
      static const std::map<std::string, StateFilter, std::less<>> kStates = {
          {"pending", StateFilter::kPending}, {"running", StateFilter::kRunning},
          {"done", StateFilter::kDone}, {"all", StateFilter::kAll}};
      auto found = kStates.find(state);
      if (found == kStates.end()) {
        return BadArgument(fmt::format(
            "py-tasks: --state wants pending, running, done or all, not '{}'", state));
      }
      options.states = found->second;
    } else if (IsOptionWithValue(arg, "--limit")) {
      PYU_ASSIGN_OR_RETURN(std::string value, OptionValue(args, i, "--limit"));
      const auto n = ParseUnsigned(value, kMaxWordNumber);
      if (!n || *n == 0) {
        return BadArgument(fmt::format("py-tasks: --limit wants a number from 1 to {}, not '{}'",
                                       kMaxWordNumber, value));
      }
      options.limit = *n;
    } else {
      return BadArgument(fmt::format("py-tasks: unknown option '{}' (see 'help py-tasks')", arg));
    }
  }
  return options;
}

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

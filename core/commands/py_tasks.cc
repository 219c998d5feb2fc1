#include "core/commands/py_tasks.h"

#include <fmt/format.h>

#include <chrono>
#include <map>

#include "core/commands/arguments.h"
#include "core/commands/command_session.h"
#include "core/render/tasks_format.h"
#include "core/render/work_stats.h"
#include "core/walk/threads.h"

namespace pyunwind {

const char kPyTasksHelp[] =
    "Usage: py-tasks [--json] [--tree] [--running] [--summary] [--name GLOB]\n"
    "                [--state pending|running|done|all] [--all] [--limit N] [--stats] [-v]\n"
    "                [--outfile FILE]\n"
    "List the asyncio tasks: address, name, thread, coroutine stack (innermost first)\n"
    "and the tasks that await each one. Finished and cancelled tasks are left out,\n"
    "as asyncio.all_tasks() leaves them out, unless --state done or --all.\n"
    "  --tree     the await graph as a tree, rooted at tasks nobody awaits; identical\n"
    "             sibling subtrees are drawn once with a count\n"
    "  --running  the task each thread's event loop is running, with its async call chain\n"
    "  --summary  tasks grouped by coroutine stack and state, largest group first\n"
    "  --name     only tasks whose name matches GLOB (*, ?, [...])\n"
    "  --state    only pending, running, or done (finished, cancelled) tasks, or all\n"
    "  --all      every task, finished ones too (--state all)\n"
    "  --limit    at most N tasks (--summary: N groups)\n"
    "  --stats    memory reads, bytes, cache hits, tasks, time and the work budget spent\n"
    "  -v, --verbose  also say where the runtime and the task offsets were found\n"
    "  --json     one JSON document (see the README)\n"
    "  --outfile  write the output to FILE (created or truncated), not to the debugger's\n"
    "             output, and print one line saying where and how many bytes\n";

namespace {

Result<std::string> OptionValue(const std::vector<std::string>& args, size_t& i,
                                std::string_view option) {
  std::optional<std::string> value = TakeOptionValue(args, i, option);
  if (!value) return BadArgument(fmt::format("py-tasks: {} needs a value", option));
  return *std::move(value);
}

std::string StatsText(const MemoryStats& m, const WorkBudget& work, size_t tasks, size_t codes,
                      double ms) {
  return fmt::format("stats: {} target reads ({} bytes, {} failed), {} cache hits, {} misses, "
                     "{} tasks, {} code objects, {:.1f} ms\n{}\n",
                     m.target_reads, m.target_bytes, m.failed_reads, m.cache_hits, m.cache_misses,
                     tasks, codes, ms, WorkStatsText(work));
}

std::string StatsJson(const MemoryStats& m, const WorkBudget& work, size_t tasks, size_t codes,
                      double ms) {
  return fmt::format("{{\"target_reads\":{},\"target_bytes\":{},\"failed_reads\":{},"
                     "\"cache_hits\":{},\"cache_misses\":{},\"tasks\":{},\"code_objects\":{},"
                     "\"elapsed_ms\":{:.3f},\"work\":{}}}",
                     m.target_reads, m.target_bytes, m.failed_reads, m.cache_hits, m.cache_misses,
                     tasks, codes, ms, WorkStatsJson(work).dump());
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

CommandOutput RunPyTasks(const std::vector<std::string>& args, CommandContext& context) {
  const auto started = std::chrono::steady_clock::now();
  auto options = ParsePyTasks(args);
  if (!options.ok()) return Failure(options.error().message);
  auto session = CommandSession::Open(context);
  if (!session.ok()) return Failure(session.error().message);
  TargetSession& target = **session;
  target.objects().memory().AllowMoreBytes(kMaxBytesReadForTasks);
  auto threads =
      WalkRuntime(target.objects(), target.codes(), target.location().address, WalkOptions{});
  if (!threads.ok()) return Failure(threads.error().message);
  auto tasks = CollectAsyncTasks(target.objects(), target.codes(), *threads);
  if (!tasks.ok()) return Failure(tasks.error().message);
  for (const std::string& warning : target.location().warnings) tasks->warnings.push_back(warning);
  if (options->verbose) {
    tasks->warnings.push_back(DescribeLocation(target.location()));
    tasks->warnings.push_back(tasks->layout_source.empty()
                                  ? std::string("task offsets: none needed (asyncio is not imported)")
                                  : "task offsets from " + tasks->layout_source);
  }

  std::vector<TaskGroupSummary> groups;
  TaskSelection selection;
  if (options->summary) {  // every matching task is counted; --limit bounds the groups
    PyTasksOptions all = *options;
    all.limit = 0;
    selection = SelectTasks(*tasks, all);
    groups = SummarizeTasks(selection.tasks);
  } else {
    selection = SelectTasks(*tasks, *options);
  }
  const MemoryStats& m = target.stats();
  const WorkBudget& work = target.objects().memory().budget();
  // Read when the output is written: the time includes writing it.
  auto ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
        .count();
  };
  if (options->json) {
    std::function<std::string()> stats;
    if (options->stats) {
      stats = [&] { return StatsJson(m, work, tasks->tasks.size(), tasks->codes.size(), ms()); };
    }
    return {FormatTasksJson(*tasks, selection, options->summary ? &groups : nullptr, stats,
                            context.write_output),
            false};
  }
  std::string out;
  if (options->summary) {
    out = FormatTasksSummary(*tasks, selection, groups, options->limit);
  } else if (options->running) {
    out = FormatRunningTasks(*tasks, selection);
  } else if (options->tree) {
    out = FormatTasksTree(*tasks, selection);
  } else {
    out = FormatTasksTable(*tasks, selection);
  }
  if (options->stats) out += StatsText(m, work, tasks->tasks.size(), tasks->codes.size(), ms());
  return {std::move(out), false};
}

}  // namespace pyunwind

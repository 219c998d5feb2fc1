#include "core/commands/py_tasks.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <string>
#include <utility>

#include "core/asyncio/await_cycles.h"
#include "core/commands/command_session.h"
#include "core/render/json_string.h"
#include "core/render/tasks_format.h"
#include "core/render/work_stats.h"
#include "core/walk/threads.h"

namespace pyunwind {

namespace {

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
                     tasks, codes, ms, DumpJson(WorkStatsJson(work)));
}

// --all and --state set the same thing: the last one given counts.
PyTasksOptions OptionsOf(const ParsedArgs& args) {
  static const std::map<std::string, StateFilter, std::less<>> kStates = {
      {"pending", StateFilter::kPending}, {"running", StateFilter::kRunning},
      {"done", StateFilter::kDone}, {"all", StateFilter::kAll}};
  PyTasksOptions options;
  options.json = args.Has("--json");
  options.tree = args.Has("--tree");
  options.running = args.Has("--running");
  options.summary = args.Has("--summary");
  options.stats = args.Has("--stats");
  options.verbose = args.Has("--verbose");
  options.name_glob = args.Text("--name");
  for (const auto& [option, value] : args.given()) {
    if (option->name == "--all") options.states = StateFilter::kAll;
    if (option->name == "--state") options.states = kStates.find(value)->second;
  }
  options.limit = args.Number("--limit").value_or(0);
  return options;
}

}  // namespace

CommandOutput RunPyTasks(const ParsedArgs& args, CommandContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const PyTasksOptions options = OptionsOf(args);
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
  if (options.verbose) {
    tasks->warnings.push_back(DescribeLocation(target.location()));
    tasks->warnings.push_back(tasks->layout_source.empty()
                                  ? std::string("task offsets: none needed (asyncio is not imported)")
                                  : "task offsets from " + tasks->layout_source);
  }

  std::vector<TaskGroupSummary> groups;
  TaskSelection selection;
  if (options.summary) {  // every matching task is counted; --limit bounds the groups
    PyTasksOptions all = options;
    all.limit = 0;
    selection = SelectTasks(*tasks, all);
    groups = SummarizeTasks(selection.tasks);
  } else {
    selection = SelectTasks(*tasks, options);
  }
  AwaitCycles cycles;
  if (options.json || options.tree) {
    cycles = FindAwaitCycles(selection.tasks);
    for (std::string& warning : AwaitCycleWarnings(cycles)) {
      tasks->warnings.push_back(std::move(warning));
    }
  }
  const MemoryStats& m = target.stats();
  const WorkBudget& work = target.objects().memory().budget();
  // Read when the output is written: the time includes writing it.
  auto ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
        .count();
  };
  if (options.json) {
    std::function<std::string()> stats;
    if (options.stats) {
      stats = [&] { return StatsJson(m, work, tasks->tasks.size(), tasks->codes.size(), ms()); };
    }
    return {FormatTasksJson(*tasks, selection, cycles, options.summary ? &groups : nullptr,
                            stats, context.write_output),
            false};
  }
  std::string out;
  if (options.summary) {
    out = FormatTasksSummary(*tasks, selection, groups, options.limit);
  } else if (options.running) {
    out = FormatRunningTasks(*tasks, selection);
  } else if (options.tree) {
    out = FormatTasksTree(*tasks, selection, cycles);
  } else {
    out = FormatTasksTable(*tasks, selection);
  }
  if (options.stats) out += StatsText(m, work, tasks->tasks.size(), tasks->codes.size(), ms());
  return {std::move(out), false};
}

}  // namespace pyunwind

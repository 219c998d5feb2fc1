#include "core/commands/py_waits.h"

#include <fmt/format.h>
#include <time.h>

#include <fstream>
#include <optional>
#include <string>

#include "core/asyncio/asyncio.h"
#include "core/base/limits.h"
#include "core/commands/command_session.h"
#include "core/render/waits_format.h"
#include "core/session/selected_thread.h"
#include "core/waits/waits.h"
#include "core/walk/thread_activity.h"
#include "core/walk/threads.h"

namespace pyunwind {
namespace {

// Threads whose native stack the debugger is asked for (what each waits in, the GIL): GDB
// takes tens of milliseconds a thread; the rest are told from their Python frames alone.
constexpr size_t kMaxWaitUnwinds = 64;
// The innermost frames a wait is read from; a deeper stack is cut (the walk says so).
constexpr size_t kMaxWaitFrames = 256;

// time.monotonic() in a live process of this machine, which asyncio loops keep time by: this
// machine's monotonic clock, moved by the process's time namespace offset where it has one
// (/proc/PID/timens_offsets, Linux 5.6+); unknown for a core or a remote process.
std::optional<double> LoopClockNow(std::optional<uint64_t> local_pid) {
  if (!local_pid) return std::nullopt;
  timespec now{};
  if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return std::nullopt;
  double seconds = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
  std::ifstream offsets(fmt::format("/proc/{}/timens_offsets", *local_pid));
  std::string clock;
  int64_t offset_seconds = 0, offset_nanoseconds = 0;
  while (offsets >> clock >> offset_seconds >> offset_nanoseconds) {
    if (clock == "monotonic") {
      seconds += static_cast<double>(offset_seconds) + static_cast<double>(offset_nanoseconds) * 1e-9;
    }
  }
  return seconds;
}

}  // namespace

CommandOutput RunPyWaits(const ParsedArgs& args, CommandContext& context) {
  auto session = CommandSession::Open(context);
  if (!session.ok()) return Failure(session.error().message);
  TargetSession& target = **session;
  target.objects().memory().AllowMoreBytes(kMaxBytesReadForTasks);
  WalkOptions walk;
  walk.max_frames_per_thread = kMaxWaitFrames;
  auto threads = WalkRuntime(target.objects(), target.codes(), target.location().address, walk);
  if (!threads.ok()) return Failure(threads.error().message);
  if (!args.Has("--all") && !threads->interpreters.empty()) {
    // The selected thread's interpreter; the main interpreter when no thread of it is selected.
    auto selected = FindSelectedThread(*threads, context.selected_thread_id);
    Interpreter interp = selected.ok() ? std::move(*selected->interpreter)
                                       : std::move(threads->interpreters.front());
    threads->interpreters = {std::move(interp)};
  }
  size_t unwinds = kMaxWaitUnwinds;
  for (Interpreter& interp : threads->interpreters) {
    for (Thread& thread : interp.threads) {
      std::vector<NativeFrame> native;
      if (thread.native_id && unwinds > 0) {
        --unwinds;
        native = context.target.NativeFrames(*thread.native_id);
      }
      if (!thread.name && thread.native_id) thread.os_name = context.target.ThreadName(*thread.native_id);
      ClassifyActivity(thread, native);
    }
  }
  std::vector<std::string> warnings = target.location().warnings;
  for (const std::string& warning : threads->warnings) warnings.push_back(warning);
  const Layout& layout = target.objects().layout();
  Result<AsyncSnapshot> tasks = MakeError("no asyncio");
  if (IsPython2(layout)) {
    // Not a failure: there are no tasks to wait (2.7's one line says so).
    warnings.push_back(fmt::format("Python {} has no asyncio: py-waits shows threads only",
                                   layout.version.MinorString()));
  } else {
    tasks = CollectAsyncTasks(target.objects(), target.codes(), *threads);
    if (!tasks.ok()) warnings.push_back("asyncio tasks not read: " + tasks.error().message);
  }
  WaitReport report = CollectWaits(target.objects(), target.codes(), *threads,
                                   tasks.ok() ? &*tasks : nullptr,
                                   LoopClockNow(context.target.LocalProcessId()));
  if (tasks.ok()) {
    for (const std::string& warning : tasks->warnings) warnings.push_back(warning);
  }
  for (std::string& warning : report.warnings) warnings.push_back(std::move(warning));
  report.warnings = std::move(warnings);
  return {args.Has("--json") ? FormatWaitsJson(report, context.output_budget)
                             : FormatWaitsText(report, context.output_budget),
          false};
}

}  // namespace pyunwind

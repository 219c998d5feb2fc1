#include "core/waits/waits.h"

#include "core/waits/task_waits.h"
#include "core/waits/thread_waits.h"
#include "core/waits/wait_graph.h"

namespace pyunwind {

WaitReport CollectWaits(ObjectReader& objects, CodeCache& codes, const Snapshot& threads,
                        const AsyncSnapshot* tasks, std::optional<double> loop_clock_now) {
  WaitReport report;
  for (const Interpreter& interp : threads.interpreters) {
    for (Wait& wait : ThreadWaits(objects, codes, interp)) report.waits.push_back(std::move(wait));
  }
  if (tasks != nullptr) {
    // Builtin types by the builtins dict: a core without its executable holds no tp_name.
    ValueFormatter values(objects);
    if (!threads.interpreters.empty()) values.UseBuiltinsOf(threads.interpreters.front().address);
    for (Wait& wait : TaskWaits(objects, values, codes, *tasks, loop_clock_now)) {
      report.waits.push_back(std::move(wait));
    }
  }
  report.cycles = FindWaitCycles(report.waits, report.warnings);
  return report;
}

}  // namespace pyunwind

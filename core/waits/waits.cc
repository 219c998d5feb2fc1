#include "core/waits/waits.h"

#include "core/waits/task_waits.h"
#include "core/waits/thread_waits.h"
#include "core/waits/wait_graph.h"

namespace pyunwind {

WaitReport CollectWaits(ObjectReader& objects, CodeCache& codes, const Snapshot& threads,
                        const AsyncSnapshot* tasks) {
  WaitReport report;
  for (const Interpreter& interp : threads.interpreters) {
    for (Wait& wait : ThreadWaits(objects, codes, interp)) report.waits.push_back(std::move(wait));
  }
  if (tasks != nullptr) {
    for (Wait& wait : TaskWaits(objects, codes, *tasks)) report.waits.push_back(std::move(wait));
  }
  report.cycles = FindWaitCycles(report.waits, report.warnings);
  return report;
}

}  // namespace pyunwind

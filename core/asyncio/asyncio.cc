#include "core/asyncio/asyncio.h"

#include <algorithm>
#include <map>

#include "core/asyncio/asyncio_layout.h"
#include "core/asyncio/running_tasks.h"
#include "core/asyncio/task_discovery.h"
#include "core/asyncio/task_edges.h"
#include "core/asyncio/task_reader.h"

namespace pyunwind {

Result<AsyncSnapshot> CollectAsyncTasks(ObjectReader& objects, CodeCache& codes,
                                        const Snapshot& threads) {
  RemoteMemory& memory = objects.memory();
  PYU_ASSIGN_OR_RETURN(AsyncioLayout a, AsyncioLayoutFor(objects.layout(), memory));
  AsyncSnapshot out;
  out.python = threads.python;
  TaskReader reader(objects, codes, a, out.warnings);
  TaskCandidates candidates = FindTaskCandidates(reader, a, threads);
  out.asyncio_imported = candidates.asyncio_imported;
  std::vector<uint64_t>& found = candidates.objects;
  if (!out.asyncio_imported && found.empty()) {
    reader.FinishWarnings();
    return out;
  }

  // The tasks among the candidates, ordered by address.
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::map<uint64_t, size_t> index;  // task address -> position in out.tasks
  for (uint64_t candidate : found) {
    if (reader.IsTask(candidate)) index[candidate] = 0;
  }
  for (auto& [address, position] : index) {
    position = out.tasks.size();
    out.tasks.push_back(reader.ReadTask(address));
    if (auto it = candidates.list_thread.find(address); it != candidates.list_thread.end()) {
      out.tasks.back().thread_native_id = it->second;
    }
  }
  AssignTaskThreads(memory, objects.layout(), threads, out.tasks);
  AddTaskEdges(reader, out.tasks, index);
  reader.FinishWarnings();
  if (auto warning = memory.BudgetWarning()) out.warnings.push_back(*warning);
  return out;
}

}  // namespace pyunwind

#include "core/asyncio/asyncio.h"

#include <algorithm>

#include "core/asyncio/asyncio_layout.h"
#include "core/asyncio/running_tasks.h"
#include "core/asyncio/task_discovery.h"
#include "core/asyncio/task_edges.h"
#include "core/asyncio/task_reader.h"
#include "core/objects/remote_collections.h"

namespace pyunwind {

const char* TaskStateName(TaskState state) {
  switch (state) {
    case TaskState::kPending: return "pending";
    case TaskState::kCancelled: return "cancelled";
    case TaskState::kFinished: return "finished";
    case TaskState::kUnknown: break;
  }
  return "unknown";
}

const AsyncTask* AsyncSnapshot::Find(uint64_t address) const {
  auto it = std::lower_bound(tasks.begin(), tasks.end(), address,
                             [](const AsyncTask& t, uint64_t a) { return t.address < a; });
  return it != tasks.end() && it->address == address ? &*it : nullptr;
}

namespace {

// True when every interpreter's sys.modules was read and none holds asyncio.tasks: then
// there are no tasks to look for (and on 3.14+ no _asyncio debug offsets to find).
bool AsyncioSurelyNotImported(ObjectReader& objects, const Snapshot& threads) {
  const Layout& layout = objects.layout();
  if (layout.interp.modules == kAbsent || threads.interpreters.empty()) return false;
  RemoteCollections collections(objects);
  for (const Interpreter& interp : threads.interpreters) {
    auto modules = objects.memory().ReadPointer(interp.address + layout.interp.modules);
    if (!modules || *modules == 0) return false;
    auto tasks = collections.DictGetString(*modules, "asyncio.tasks");
    if (!tasks.ok() || *tasks != 0) return false;
  }
  return true;
}

}  // namespace

Result<AsyncSnapshot> CollectAsyncTasks(ObjectReader& objects, CodeCache& codes,
                                        const Snapshot& threads, bool running_only) {
  RemoteMemory& memory = objects.memory();
  AsyncSnapshot out;
  out.python = threads.python;
  auto layout = AsyncioLayoutFor(objects.layout(), memory);
  if (!layout.ok()) {
    // 2.7 has no asyncio to import: its one line says so.
    if (!IsPython2(objects.layout()) && AsyncioSurelyNotImported(objects, threads)) return out;
    return layout.error();
  }
  const AsyncioLayout& a = *layout;
  out.layout_source = a.source;
  TaskReader reader(objects, codes, a, out);
  TaskCandidates candidates = FindTaskCandidates(reader, a, threads, running_only);
  out.asyncio_imported = candidates.asyncio_imported;
  std::vector<uint64_t>& found = candidates.objects;
  if (!out.asyncio_imported && found.empty()) {
    reader.FinishWarnings();
    return out;
  }

  // The tasks among the candidates, ordered by address.
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  found.erase(std::remove_if(found.begin(), found.end(),
                             [&](uint64_t candidate) { return !reader.IsTask(candidate); }),
              found.end());
  out.tasks.resize(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    AsyncTask& task = out.tasks[i];
    reader.ReadTask(found[i], task);
    if (auto it = candidates.list_thread.find(found[i]); it != candidates.list_thread.end()) {
      task.thread_native_id = it->second;
    }
  }
  AssignTaskThreads(reader, threads, out.tasks, out.running_loops);
  if (!running_only) AddTaskEdges(reader, out);
  reader.FinishWarnings();
  if (auto warning = memory.BudgetWarning()) out.warnings.push_back(*warning);
  return out;
}

}  // namespace pyunwind

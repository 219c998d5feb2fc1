#include "core/asyncio/task_discovery.h"

#include <fmt/format.h>

#include <unordered_set>

#include "core/base/address.h"

namespace pyunwind {
namespace {

// Appends the tasks of an llist whose head is at `head`: each node is the
// task_node of a TaskObj.
void WalkTaskList(RemoteMemory& memory, uint64_t head, int32_t node_offset,
                  std::vector<uint64_t>& out, TaskReader& reader) {
  std::unordered_set<uint64_t> seen;
  auto node = memory.ReadPointer(head);
  while (node && *node != 0 && *node != head) {
    if (!Aligned(*node) || !seen.insert(*node).second) {
      reader.Warn(fmt::format("the task list at {:#x} is damaged or loops: cut", head));
      return;
    }
    if (seen.size() > kMaxTasks) {
      reader.Warn(fmt::format("the task list at {:#x} has more than {} tasks: the rest are not "
                              "shown...truncated", head, kMaxTasks));
      return;
    }
    out.push_back(*node - node_offset);
    node = memory.ReadPointer(*node);
  }
  if (!node) reader.Warn(fmt::format("cannot read the task list at {:#x}", head));
}

// The registry of asyncio.tasks (3.11-3.13), whose module dict is `dict`.
void ReadRegistry(TaskReader& reader, uint64_t dict, std::vector<uint64_t>& out,
                  bool current_only) {
  RemoteCollections& c = reader.collections();
  for (const char* name : {"_scheduled_tasks", "_all_tasks"}) {
    if (current_only) break;
    auto weakset = c.DictGetString(dict, name);
    if (!weakset.ok() || *weakset == 0) continue;
    auto data = c.InstanceAttribute(*weakset, "data");
    if (!data.ok() || *data == 0) {
      reader.Warn(fmt::format("asyncio.tasks.{}: cannot read its data set{}", name,
                              data.ok() ? "" : ": " + data.error().message));
      continue;
    }
    size_t cut = 0;
    auto refs = c.SetItems(*data, kMaxTasks, &cut);
    if (!refs.ok()) {
      reader.Warn(fmt::format("asyncio.tasks.{}: {}", name, refs.error().message));
      continue;
    }
    if (cut) {
      reader.Warn(fmt::format("asyncio.tasks.{}: {} more tasks than the {} read were not "
                              "shown...truncated", name, cut, kMaxTasks));
    }
    out.reserve(out.size() + refs->size());
    for (uint64_t ref : *refs) {
      auto target = c.WeakrefTarget(ref);
      if (target.ok() && *target) out.push_back(*target);
    }
    break;
  }
  if (auto eager = c.DictGetString(dict, "_eager_tasks"); !current_only && eager.ok() && *eager) {
    size_t cut = 0;
    auto items = c.SetItems(*eager, kMaxTasks, &cut);
    if (items.ok()) out.insert(out.end(), items->begin(), items->end());
    if (cut) {
      reader.Warn(fmt::format("asyncio.tasks._eager_tasks: {} more tasks than the {} read were "
                              "not shown...truncated", cut, kMaxTasks));
    }
  }
  if (auto current = c.DictGetString(dict, "_current_tasks"); current.ok() && *current) {
    auto items = c.DictItems(*current, kMaxTasks);
    if (items.ok()) {
      for (const auto& [loop, task] : *items) out.push_back(task);
    }
  }
}

}  // namespace

TaskCandidates FindTaskCandidates(TaskReader& reader, const AsyncioLayout& a,
                                  const Snapshot& threads, bool current_only) {
  RemoteMemory& memory = reader.objects().memory();
  const Layout& layout = reader.objects().layout();
  RemoteCollections& c = reader.collections();
  TaskCandidates out;
  auto module_dict = [&](uint64_t module) -> uint64_t {
    if (module == 0) return 0;
    return memory.ReadPointer(module + layout.module.md_dict).value_or(0);
  };
  auto module_global = [&](uint64_t module, const char* name) -> uint64_t {
    const uint64_t dict = module_dict(module);
    if (dict == 0) return 0;
    auto value = c.DictGetString(dict, name);
    return value.ok() ? *value : 0;
  };
  for (const Interpreter& interp : threads.interpreters) {
    uint64_t tasks_module = 0;
    if (layout.interp.modules != kAbsent) {
      auto modules = memory.ReadPointer(interp.address + layout.interp.modules);
      if (modules && *modules) {
        auto found = c.DictGetString(*modules, "asyncio.tasks");
        if (found.ok()) {
          tasks_module = *found;
          auto types = c.DictGetString(*modules, "types");
          auto builtins = c.DictGetString(*modules, "builtins");
          const uint64_t types_module = types.ok() ? *types : 0;
          reader.known.coroutine = module_global(types_module, "CoroutineType");
          reader.known.async_generator = module_global(types_module, "AsyncGeneratorType");
          reader.known.method = module_global(types_module, "MethodType");
          reader.known.int_type = module_global(builtins.ok() ? *builtins : 0, "int");
          reader.known.task = module_global(tasks_module, "Task");
          reader.known.gathering = module_global(tasks_module, "_GatheringFuture");
        } else {
          reader.Warn(fmt::format("sys.modules: {}", found.error().message));
        }
      }
    }
    if (tasks_module != 0) out.asyncio_imported = true;
    if (a.task_node != kAbsent && current_only && a.tstate_running_task != kAbsent) {
      for (const Thread& thread : interp.threads) {
        auto task = memory.ReadPointer(thread.tstate_address + a.tstate_running_task);
        if (task && *task && Aligned(*task)) out.objects.push_back(*task);
      }
      continue;
    }
    if (a.task_node != kAbsent) {  // the _asyncio module's own lists
      for (const Thread& thread : interp.threads) {
        std::vector<uint64_t> found;
        WalkTaskList(memory, thread.tstate_address + a.tstate_tasks_head, a.task_node, found,
                     reader);
        for (uint64_t task : found) {
          if (thread.native_id) out.list_thread[task] = *thread.native_id;
          out.objects.push_back(task);
        }
      }
      WalkTaskList(memory, interp.address + a.interp_tasks_head, a.task_node, out.objects, reader);
      continue;
    }
    if (tasks_module == 0) continue;
    const uint64_t dict = module_dict(tasks_module);
    if (dict == 0) {
      reader.Warn("cannot read the dict of asyncio.tasks");
      continue;
    }
    ReadRegistry(reader, dict, out.objects, current_only);
  }
  return out;
}

}  // namespace pyunwind

#include "core/asyncio/task_discovery.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <unordered_set>

#include "core/base/address.h"
#include "core/target/elf_image.h"
#include "core/target/elf_symbols.h"

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

// The tasks of a weakref.WeakSet (its `data`: a set of weak references), named `name` in
// warnings.
void ReadWeakSet(TaskReader& reader, uint64_t weakset, const std::string& name,
                 std::vector<uint64_t>& out) {
  RemoteCollections& c = reader.collections();
  auto data = c.InstanceAttribute(weakset, "data");
  if (!data.ok() || *data == 0) {
    reader.Warn(fmt::format("{}: cannot read its data set{}", name,
                            data.ok() ? "" : ": " + data.error().message));
    return;
  }
  size_t cut = 0;
  auto refs = c.SetItems(*data, kMaxTasks, &cut);
  if (!refs.ok()) {
    reader.Warn(fmt::format("{}: {}", name, refs.error().message));
    return;
  }
  if (cut) {
    reader.Warn(fmt::format("{}: {} more tasks than the {} read were not shown...truncated", name,
                            cut, kMaxTasks));
  }
  out.reserve(out.size() + refs->size());
  for (uint64_t ref : *refs) {
    auto target = c.WeakrefTarget(ref);
    if (target.ok() && *target) out.push_back(*target);
  }
}

// The running task of each loop: a dict {loop: task}.
void ReadCurrentTasks(TaskReader& reader, uint64_t dict, std::vector<uint64_t>& out) {
  auto items = reader.collections().DictItems(dict, kMaxTasks);
  if (!items.ok()) return;
  for (const auto& [loop, task] : *items) out.push_back(task);
}

// The registry of asyncio.tasks (3.7-3.13), whose module dict is `dict`; false where it
// has none (3.6, whose C tasks the _asyncio module keeps).
bool ReadRegistry(TaskReader& reader, uint64_t dict, std::vector<uint64_t>& out,
                  bool current_only) {
  RemoteCollections& c = reader.collections();
  bool found = false;
  for (const char* name : {"_scheduled_tasks", "_all_tasks"}) {
    auto weakset = c.DictGetString(dict, name);
    if (!weakset.ok() || *weakset == 0) continue;
    found = true;
    if (!current_only) ReadWeakSet(reader, *weakset, fmt::format("asyncio.tasks.{}", name), out);
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
    ReadCurrentTasks(reader, *current, out);
  }
  return found;
}

// 3.6: the _asyncio module keeps its tasks in two C statics, `all_tasks` (a WeakSet) and
// `current_tasks` (a dict {loop: task}), which its symbol table names (pyenv's builds keep
// .symtab; a stripped module cannot be read: a warning says so).
void ReadAsyncioStatics(TaskReader& reader, std::vector<uint64_t>& out, bool current_only) {
  RemoteMemory& memory = reader.objects().memory();
  std::string tried;
  for (const LoadedModule& module : memory.target().Modules()) {
    const size_t slash = module.path.rfind('/');
    const std::string_view base =
        std::string_view(module.path).substr(slash == std::string::npos ? 0 : slash + 1);
    if (base.rfind("_asyncio.", 0) != 0) continue;
    auto image = ElfImage::Map(module.path);
    const std::optional<uint64_t> all = image.ok() ? FindElfSymbol(*image, "all_tasks") : std::nullopt;
    const std::optional<uint64_t> current =
        image.ok() ? FindElfSymbol(*image, "current_tasks") : std::nullopt;
    if (!all || !current) {
      tried = module.path;
      continue;
    }
    auto weakset = memory.ReadPointer(*all + module.load_bias);
    auto dict = memory.ReadPointer(*current + module.load_bias);
    if (!weakset || !dict) {
      reader.Warn(fmt::format("cannot read the _asyncio module's all_tasks and current_tasks "
                              "(statics of {})", module.path));
      return;
    }
    if (!current_only && *weakset) ReadWeakSet(reader, *weakset, "_asyncio's all_tasks", out);
    if (*dict) ReadCurrentTasks(reader, *dict, out);
    return;
  }
  reader.Warn(tried.empty()
                  ? std::string("the tasks are kept by the _asyncio module, which the debugger "
                                "does not list: they cannot be found")
                  : fmt::format("the tasks are kept in the _asyncio module's statics all_tasks "
                                "and current_tasks, which {} has no symbol for: they cannot be "
                                "found", tried));
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
    if (!ReadRegistry(reader, dict, out.objects, current_only)) {
      ReadAsyncioStatics(reader, out.objects, current_only);
    }
  }
  return out;
}

}  // namespace pyunwind

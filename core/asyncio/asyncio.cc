#include "core/asyncio/asyncio.h"
#include "core/base/address.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/asyncio/asyncio_debug.h"
#include "core/walk/frames.h"
#include "core/target/memory.h"
#include "core/objects/remote_collections.h"
#include "core/walk/threads.h"

namespace pyunwind {
namespace {

constexpr int64_t kMaxStackDepth = 1 << 16;

// Where the asyncio objects keep what py-tasks reads, for one version. The
// offsets are those of the default (GIL) build; `delta` (16 in free-threaded
// builds, whose object header is 16 bytes longer) is added to every field of
// an object. Read from the debug info of the fixture interpreters
// (../shared/fixtures/layouts: TaskObj, PyCoroObject, _PyInterpreterFrame,
// _PyThreadStateImpl) and CPython's headers.
struct AsyncioLayout {
  int minor = 0;
  int32_t delta = 0;
  // TaskObj (FutureObj fields first).
  int32_t task_loop = 16;
  int32_t task_callback0 = 24;
  int32_t task_callbacks = 40;
  int32_t task_state = kAbsent;
  int32_t task_fut_waiter = kAbsent;
  int32_t task_coro = kAbsent;
  int32_t task_name = kAbsent;
  int32_t task_awaited_by = kAbsent;         // 3.14+
  int32_t task_awaited_by_is_set = kAbsent;  // 3.14+
  int32_t task_node = kAbsent;               // 3.14+: llist_node in the thread's list
  // PyCoroObject.
  int32_t cr_frame_state = kAbsent;
  int32_t cr_iframe = kAbsent;
  // _PyInterpreterFrame: stacktop (int, 3.11-3.13) or stackpointer (3.14+).
  int32_t frame_stack = 64;
  bool frame_stack_is_pointer = false;
  // enum _framestate (Include/internal/pycore_frame.h): renumbered in 3.13
  // and again in 3.15, which also adds FRAME_SUSPENDED_YIELD_FROM_LOCKED
  // (free-threaded builds) and ends with FRAME_CLEARED.
  int8_t frame_created = -2;
  int8_t frame_suspended_yield_from = -1;
  int8_t frame_suspended_yield_from_locked = -1;
  int8_t frame_completed = 1;  // this state and above: the frame is gone
  // Where a frame suspended in `await` keeps the awaited object, counted
  // from the top of its value stack: 3.15 pushes one more value above it.
  int32_t awaited_from_top = 1;
  // _PyThreadStateImpl and PyInterpreterState (3.14+).
  int32_t tstate_running_task = kAbsent;
  int32_t tstate_tasks_head = kAbsent;
  int32_t interp_tasks_head = kAbsent;
  std::string source;
};

Result<AsyncioLayout> AsyncioLayoutFor(const Layout& layout, RemoteMemory& memory) {
  AsyncioLayout a;
  const PythonVersion& v = layout.version;
  a.minor = v.minor();
  if (v.major() != 3 || v.minor() < 11) {
    return MakeError(fmt::format("py-tasks does not support Python {}", v.MinorString()));
  }
  a.delta = layout.object.ob_type - 8;
  a.source = fmt::format("table {}", v.MinorString());
  // Facts of 3.11-3.13 (their TaskObj, PyCoroObject and frame states):
  // checked against the fixture layouts of the default builds.
  switch (v.minor()) {
    case 11:
    case 12:
      a.task_state = 88;
      a.task_fut_waiter = 128;
      a.task_coro = 136;
      a.task_name = 144;
      break;
    case 13:
      a.task_state = 96;
      a.task_fut_waiter = 112;
      a.task_coro = 120;
      a.task_name = 128;
      break;
  }
  if (v.minor() <= 13) {
    a.cr_frame_state = v.minor() == 11 ? 75 : 67;
    a.cr_iframe = v.minor() == 11 ? 80 : 72;
    for (int32_t* field : {&a.task_loop, &a.task_callback0, &a.task_callbacks, &a.task_state,
                           &a.task_fut_waiter, &a.task_coro, &a.task_name, &a.cr_frame_state,
                           &a.cr_iframe}) {
      *field += a.delta;
    }
    if (v.minor() == 13) a.frame_created = -3;  // FRAME_CREATED; -2 is FRAME_SUSPENDED
    return a;
  }

  // 3.14+: the target describes its own tasks (_AsyncioDebug), coroutines
  // and frames (_Py_DebugOffsets). What neither gives follows from TaskObj's
  // declaration, unchanged in 3.14 and 3.15: FutureObj's fields start with
  // loop, callback0, context0, callbacks right after the object header, and
  // awaited_by is followed by state (int), is_task, awaited_by_is_set, then
  // num_cancels_requested; fut_waiter comes right before coro.
  if (layout.gen.iframe == kAbsent || layout.gen.frame_state == kAbsent ||
      layout.frame.stackpointer == kAbsent) {
    return MakeError(fmt::format(
        "py-tasks: the _Py_DebugOffsets of Python {} give no generator or frame stack offsets",
        v.MinorString()));
  }
  auto debug = FindAsyncioDebug(memory, layout);
  if (!debug.ok()) return MakeError("py-tasks: " + debug.error().message);
  a.source = "_AsyncioDebug, found by " + debug->found_by;
  a.task_loop += a.delta;
  a.task_callback0 += a.delta;
  a.task_callbacks += a.delta;
  a.task_name = static_cast<int32_t>(debug->task_name);
  a.task_awaited_by = static_cast<int32_t>(debug->task_awaited_by);
  a.task_state = a.task_awaited_by + 8;
  a.task_awaited_by_is_set = static_cast<int32_t>(debug->task_awaited_by_is_set);
  a.task_coro = static_cast<int32_t>(debug->task_coro);
  a.task_fut_waiter = a.task_coro - 8;
  a.task_node = static_cast<int32_t>(debug->task_node);
  a.interp_tasks_head = static_cast<int32_t>(debug->interp_tasks_head);
  a.tstate_running_task = static_cast<int32_t>(debug->thread_running_task);
  a.tstate_tasks_head = static_cast<int32_t>(debug->thread_tasks_head);
  a.cr_frame_state = layout.gen.frame_state;
  a.cr_iframe = layout.gen.iframe;
  a.frame_stack = layout.frame.stackpointer;
  a.frame_stack_is_pointer = true;
  if (v.minor() == 14) {
    a.frame_created = -3;
  } else {  // 3.15 and, with the warning that says so, newer
    a.frame_created = 0;
    a.frame_suspended_yield_from = 2;
    a.frame_suspended_yield_from_locked = 3;
    a.frame_completed = 5;  // FRAME_CLEARED; FRAME_EXECUTING is 4
    a.awaited_from_top = 2;
  }
  return a;
}

class TaskReader {
 public:
  TaskReader(ObjectReader& objects, CodeCache& codes, const AsyncioLayout& a,
             std::vector<std::string>& warnings)
      : objects_(objects), codes_(codes), c_(objects), a_(a), warnings_(warnings) {}

  RemoteCollections& collections() { return c_; }

  // Type objects found through sys.modules: a core without the binaries
  // often lacks the read-only pages that hold a static type's tp_name, so
  // types are compared by address first and by name only as a fallback.
  struct KnownTypes {
    uint64_t task = 0;        // asyncio.tasks.Task (_asyncio.Task)
    uint64_t coroutine = 0;   // types.CoroutineType
    uint64_t method = 0;      // types.MethodType
    uint64_t int_type = 0;    // builtins.int
    uint64_t gathering = 0;   // asyncio.tasks._GatheringFuture
  } known;

  bool IsA(uint64_t object, uint64_t type, std::string_view name) {
    auto actual = c_.TypeOf(object);
    if (!actual.ok()) return false;
    if (type != 0) return *actual == type;
    auto actual_name = TypeNameOfType(*actual);
    return actual_name.ok() && *actual_name == name;
  }

  void Warn(std::string message) {
    if (warnings_.size() < 64) warnings_.push_back(std::move(message));
  }

  // True for an instance of _asyncio.Task or of a class derived from it.
  bool IsTask(uint64_t object) {
    auto found = is_task_cache_.find(object);
    if (found != is_task_cache_.end()) return found->second;
    bool result = false;
    auto type = c_.TypeOf(object);
    uint64_t t = type.ok() ? *type : 0;
    for (int depth = 0; t != 0 && depth < 16; ++depth) {
      if (known.task != 0) {
        if (t == known.task) {
          result = true;
          break;
        }
      } else {
        auto name = TypeNameOfType(t);
        if (!name.ok()) break;
        if (*name == "_asyncio.Task") {
          result = true;
          break;
        }
      }
      auto base = objects_.memory().ReadPointer(t + 256 + a_.delta);  // tp_base
      if (!base || !Aligned(*base) || *base == t) break;
      t = *base;
    }
    is_task_cache_[object] = result;
    return result;
  }

  Result<std::string> TypeNameOfType(uint64_t type) {
    auto name = objects_.memory().ReadPointer(type + objects_.layout().type.tp_name);
    if (!name || *name == 0) return MakeError("cannot read a type's name");
    std::string out;
    for (size_t i = 0; i < 128; ++i) {
      auto c = objects_.memory().ReadValue<char>(*name + i);
      if (!c) return MakeError("cannot read a type's name");
      if (*c == '\0') break;
      out += *c;
    }
    return out;
  }

  AsyncTask ReadTask(uint64_t address) {
    RemoteMemory& memory = objects_.memory();
    AsyncTask task;
    task.address = address;
    task.loop = memory.ReadPointer(address + a_.task_loop).value_or(0);
    task.fut_waiter = memory.ReadPointer(address + a_.task_fut_waiter).value_or(0);
    task.coroutine = memory.ReadPointer(address + a_.task_coro).value_or(0);
    const auto state = memory.ReadValue<int32_t>(address + a_.task_state);
    static const char* kStates[] = {"pending", "cancelled", "finished"};
    task.state = state && *state >= 0 && *state <= 2 ? kStates[*state] : "unknown";
    task.name = ReadName(address);
    ReadCoroutineStack(task);
    return task;
  }

  std::string ReadName(uint64_t task) {
    auto name = objects_.memory().ReadPointer(task + a_.task_name);
    if (!name || !Aligned(*name)) {
      Warn(fmt::format("task {:#x}: cannot read its name", task));
      return fmt::format("<task {:#x}>", task);
    }
    if (IsA(*name, known.int_type, "int")) {  // 3.12+: an unnamed task keeps its counter
      auto number = objects_.ReadInt(*name);
      if (number.ok()) return fmt::format("Task-{}", *number);
    }
    auto text = objects_.ReadString(*name);
    if (text.ok()) return *text;
    Warn(fmt::format("task {:#x}: {}", task, text.error().message));
    return fmt::format("<task {:#x}>", task);
  }

  // The task's coroutine and what it awaits, through suspended frames.
  void ReadCoroutineStack(AsyncTask& task) {
    RemoteMemory& memory = objects_.memory();
    std::vector<Frame> outermost_first;
    std::unordered_set<uint64_t> seen;
    uint64_t coro = task.coroutine;
    while (coro != 0) {
      if (!seen.insert(coro).second) {
        Warn(fmt::format("task {}: the coroutine chain loops", task.name));
        break;
      }
      if (seen.size() > kMaxCoroutineDepth) {
        Warn(fmt::format("task {}: more than {} coroutines deep: the rest are not shown...truncated",
                         task.name, kMaxCoroutineDepth));
        break;
      }
      if (!IsA(coro, known.coroutine, "coroutine")) break;  // a future, a generator...
      const auto state = memory.ReadValue<int8_t>(coro + a_.cr_frame_state);
      if (!state) {
        Warn(fmt::format("task {}: cannot read coroutine {:#x}", task.name, coro));
        break;
      }
      if (*state >= a_.frame_completed) break;  // finished: no frame
      const uint64_t frame = coro + a_.cr_iframe;
      Thread one;
      WalkFrames(objects_, codes_, frame, 1, one);
      if (one.frames.empty()) {
        Warn(fmt::format("task {}: coroutine {:#x}: {}", task.name, coro,
                         one.error.value_or("no frame")));
        break;
      }
      Frame f = std::move(one.frames.front());
      if (*state == a_.frame_created) f.line = codes_.Get(f.code_address).ok() ? std::optional<int>((*codes_.Get(f.code_address))->first_line) : f.line;
      outermost_first.push_back(std::move(f));
      const bool awaiting = *state == a_.frame_suspended_yield_from ||
                            *state == a_.frame_suspended_yield_from_locked;
      if (!awaiting) break;
      coro = StackTop(frame).value_or(0);
    }
    task.coroutine_stack.assign(outermost_first.rbegin(), outermost_first.rend());
  }

  // The object on top of a suspended frame's value stack: what `await` or
  // `yield from` waits for.
  std::optional<uint64_t> StackTop(uint64_t frame) {
    RemoteMemory& memory = objects_.memory();
    const Layout::Frame& f = objects_.layout().frame;
    uint64_t slot = 0;
    if (a_.frame_stack_is_pointer) {
      auto pointer = memory.ReadPointer(frame + a_.frame_stack);
      if (!pointer || *pointer < frame + f.localsplus + 8 * a_.awaited_from_top ||
          *pointer - frame > static_cast<uint64_t>(kMaxStackDepth) * 8) {
        return std::nullopt;
      }
      slot = *pointer - 8 * static_cast<uint64_t>(a_.awaited_from_top);
    } else {
      auto top = memory.ReadValue<int32_t>(frame + a_.frame_stack);
      if (!top || *top <= 0 || *top > kMaxStackDepth) return std::nullopt;
      slot = frame + f.localsplus + 8 * static_cast<uint64_t>(*top - 1);
    }
    auto value = memory.ReadPointer(slot);
    if (!value) return std::nullopt;
    const uint64_t object = *value & ~f.stackref_tag_mask & ~uint64_t{1};
    return Aligned(object) ? std::optional<uint64_t>(object) : std::nullopt;
  }

  // The done-callbacks of a future: callback0, then the (callback, context)
  // pairs of the callbacks list.
  std::vector<uint64_t> Callbacks(uint64_t future) {
    RemoteMemory& memory = objects_.memory();
    std::vector<uint64_t> out;
    if (auto first = memory.ReadPointer(future + a_.task_callback0); first && *first) {
      out.push_back(*first);
    }
    auto list = memory.ReadPointer(future + a_.task_callbacks);
    if (list && *list) {
      auto items = c_.ListItems(*list, 4096);
      if (items.ok()) {
        for (uint64_t pair : *items) {
          auto tuple = c_.TupleItems(pair, 4);
          if (tuple.ok() && !tuple->empty()) out.push_back((*tuple)[0]);
        }
      }
    }
    return out;
  }

  // 3.14+: the tasks recorded in task_awaited_by (one object, or a set).
  std::vector<uint64_t> AwaitedBy(uint64_t task) {
    RemoteMemory& memory = objects_.memory();
    std::vector<uint64_t> out;
    if (a_.task_awaited_by == kAbsent) return out;
    auto value = memory.ReadPointer(task + a_.task_awaited_by);
    auto is_set = memory.ReadValue<uint8_t>(task + a_.task_awaited_by_is_set);
    if (!value || !is_set || *value == 0) return out;
    if (*is_set) {
      auto items = c_.SetItems(*value, 4096);
      if (items.ok()) return *items;
      Warn(fmt::format("task {:#x}: awaited_by: {}", task, items.error().message));
      return out;
    }
    out.push_back(*value);
    return out;
  }

 private:
  ObjectReader& objects_;
  CodeCache& codes_;
  RemoteCollections c_;
  const AsyncioLayout& a_;
  std::vector<std::string>& warnings_;
  std::unordered_map<uint64_t, bool> is_task_cache_;
};

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

}  // namespace

Result<AsyncSnapshot> CollectAsyncTasks(ObjectReader& objects, CodeCache& codes,
                                        const Snapshot& threads) {
  RemoteMemory& memory = objects.memory();
  const Layout& layout = objects.layout();
  PYU_ASSIGN_OR_RETURN(AsyncioLayout a, AsyncioLayoutFor(layout, memory));
  AsyncSnapshot out;
  out.python = threads.python;
  TaskReader reader(objects, codes, a, out.warnings);
  RemoteCollections& c = reader.collections();

  // Which candidates are tasks, and on which thread's list they were found.
  std::vector<uint64_t> candidates;
  std::unordered_map<uint64_t, uint64_t> list_thread;  // task -> native id (3.14+)
  for (const Interpreter& interp : threads.interpreters) {
    uint64_t tasks_module = 0;
    // A module's dict: PyModuleObject.md_dict follows the object header.
    auto module_dict = [&](uint64_t module) -> uint64_t {
      if (module == 0) return 0;
      return memory.ReadPointer(module + 16 + a.delta).value_or(0);
    };
    auto module_global = [&](uint64_t module, const char* name) -> uint64_t {
      const uint64_t dict = module_dict(module);
      if (dict == 0) return 0;
      auto value = c.DictGetString(dict, name);
      return value.ok() ? *value : 0;
    };
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
    if (a.minor >= 14) {
      for (const Thread& thread : interp.threads) {
        std::vector<uint64_t> found;
        WalkTaskList(memory, thread.tstate_address + a.tstate_tasks_head, a.task_node, found,
                     reader);
        for (uint64_t task : found) {
          if (thread.native_id) list_thread[task] = *thread.native_id;
          candidates.push_back(task);
        }
      }
      WalkTaskList(memory, interp.address + a.interp_tasks_head, a.task_node, candidates, reader);
      continue;
    }
    if (tasks_module == 0) continue;
    auto dict = std::optional<uint64_t>(module_dict(tasks_module));
    if (!*dict) {
      reader.Warn("cannot read the dict of asyncio.tasks");
      continue;
    }
    for (const char* name : {"_scheduled_tasks", "_all_tasks"}) {
      auto weakset = c.DictGetString(*dict, name);
      if (!weakset.ok() || *weakset == 0) continue;
      auto data = c.InstanceAttribute(*weakset, "data");
      if (!data.ok() || *data == 0) {
        reader.Warn(fmt::format("asyncio.tasks.{}: cannot read its data set{}", name,
                                data.ok() ? "" : ": " + data.error().message));
        continue;
      }
      auto refs = c.SetItems(*data, kMaxTasks);
      if (!refs.ok()) {
        reader.Warn(fmt::format("asyncio.tasks.{}: {}", name, refs.error().message));
        continue;
      }
      for (uint64_t ref : *refs) {
        auto target = c.WeakrefTarget(ref);
        if (target.ok() && *target) candidates.push_back(*target);
      }
      break;
    }
    if (auto eager = c.DictGetString(*dict, "_eager_tasks"); eager.ok() && *eager) {
      auto items = c.SetItems(*eager, kMaxTasks);
      if (items.ok()) candidates.insert(candidates.end(), items->begin(), items->end());
    }
    if (auto current = c.DictGetString(*dict, "_current_tasks"); current.ok() && *current) {
      auto items = c.DictItems(*current, kMaxTasks);
      if (items.ok()) {
        for (const auto& [loop, task] : *items) candidates.push_back(task);
      }
    }
  }
  if (!out.asyncio_imported && candidates.empty()) return out;

  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::map<uint64_t, size_t> index;  // task address -> position in out.tasks
  for (uint64_t candidate : candidates) {
    if (!reader.IsTask(candidate)) continue;
    index[candidate] = 0;
  }
  for (auto& [address, position] : index) {
    position = out.tasks.size();
    out.tasks.push_back(reader.ReadTask(address));
    if (auto it = list_thread.find(address); it != list_thread.end()) {
      out.tasks.back().thread_native_id = it->second;
    }
  }

  // Running tasks: a coroutine frame on a thread's stack. Loops: the `self`
  // of a run_forever frame.
  std::unordered_map<uint64_t, uint64_t> frame_thread;  // frame address -> native id
  std::unordered_map<uint64_t, uint64_t> loop_thread;
  const Layout::Frame& f = layout.frame;
  for (const Interpreter& interp : threads.interpreters) {
    for (const Thread& thread : interp.threads) {
      if (!thread.native_id) continue;
      for (const Frame& frame : thread.frames) {
        frame_thread[frame.frame_address] = *thread.native_id;
        if (frame.name == "run_forever" || frame.name == "_run_once") {
          auto self = memory.ReadPointer(frame.frame_address + f.localsplus);
          if (self && *self) loop_thread[*self & ~f.stackref_tag_mask] = *thread.native_id;
        }
      }
    }
  }
  for (AsyncTask& task : out.tasks) {
    if (!task.coroutine) continue;
    auto it = frame_thread.find(task.coroutine + a.cr_iframe);
    if (it == frame_thread.end()) continue;
    task.running = true;
    task.thread_native_id = it->second;
    if (task.loop) loop_thread.emplace(task.loop, it->second);
  }
  for (AsyncTask& task : out.tasks) {
    if (task.thread_native_id) continue;
    if (auto it = loop_thread.find(task.loop); it != loop_thread.end()) {
      task.thread_native_id = it->second;
    }
  }

  // Edges.
  std::set<std::pair<uint64_t, uint64_t>> have;  // (awaited, awaiter)
  auto add_edge = [&](uint64_t awaited, uint64_t awaiter, const char* kind) {
    auto it = index.find(awaited);
    if (it == index.end() || !index.count(awaiter) || awaited == awaiter) return;
    if (!have.insert({awaited, awaiter}).second) return;
    out.tasks[it->second].awaited_by.push_back({awaiter, kind});
  };
  for (const AsyncTask& task : out.tasks) {
    if (task.fut_waiter == 0) continue;
    if (index.count(task.fut_waiter)) {
      add_edge(task.fut_waiter, task.address, "await");
      continue;
    }
    if (reader.IsA(task.fut_waiter, reader.known.gathering, "_GatheringFuture")) {
      auto children = c.InstanceAttribute(task.fut_waiter, "_children");
      if (!children.ok()) {
        reader.Warn(fmt::format("task {}: gather: {}", task.name, children.error().message));
        continue;
      }
      if (*children == 0) continue;
      auto items = c.ListItems(*children, kMaxTasks);
      if (!items.ok()) continue;
      for (uint64_t child : *items) add_edge(child, task.address, "gather");
    }
  }
  for (const AsyncTask& task : out.tasks) {
    for (uint64_t callback : reader.Callbacks(task.address)) {
      if (!reader.IsA(callback, reader.known.method, "method")) continue;
      auto method = c.BoundMethod(callback);
      if (!method.ok()) continue;
      auto qualname = c.FunctionQualname(method->first);
      if (!qualname.ok() || *qualname != "TaskGroup._on_task_done") continue;
      auto parent = c.InstanceAttribute(method->second, "_parent_task");
      if (parent.ok() && *parent) add_edge(task.address, *parent, "taskgroup");
    }
  }
  for (const AsyncTask& task : out.tasks) {
    for (uint64_t awaiter : reader.AwaitedBy(task.address)) {
      add_edge(task.address, awaiter, "awaited_by");
    }
  }
  if (memory.BudgetExhausted()) {
    out.warnings.push_back("the read budget for one command ran out: output is incomplete...truncated");
  }
  return out;
}

void AddRunningTasks(ObjectReader& objects, CodeCache& codes, Snapshot& threads) {
  const Layout& layout = objects.layout();
  if (layout.interp.modules == kAbsent) return;
  RemoteMemory& memory = objects.memory();
  RemoteCollections c(objects);
  bool imported = false;
  for (const Interpreter& interp : threads.interpreters) {
    auto modules = memory.ReadPointer(interp.address + layout.interp.modules);
    if (!modules || !Aligned(*modules)) continue;
    auto asyncio = c.DictGetString(*modules, "asyncio");
    if (asyncio.ok() && *asyncio != 0) {
      imported = true;
      break;
    }
  }
  if (!imported) return;
  auto tasks = CollectAsyncTasks(objects, codes, threads);
  if (!tasks.ok()) return;
  for (const AsyncTask& task : tasks->tasks) {
    if (!task.running || !task.thread_native_id) continue;
    for (Interpreter& interp : threads.interpreters) {
      for (Thread& thread : interp.threads) {
        if (thread.native_id != task.thread_native_id || thread.running_task) continue;
        thread.running_task = Thread::RunningTask{task.address, task.name};
        thread.status.push_back("running_task");
      }
    }
  }
}

}  // namespace pyunwind

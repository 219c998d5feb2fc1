#include "core/waits/task_waits.h"

#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/base/limits.h"
#include "core/objects/remote_collections.h"
#include "core/objects/values.h"
#include "core/walk/calls.h"
#include "core/walk/locals.h"
#include "core/waits/method_qualnames.h"
#include "core/waits/unwakeable_awaits.h"
#include "core/waits/with_blocks.h"

namespace pyunwind {
namespace {

// The asyncio coroutines that park a task on a future, by qualname, and the kind of the wait.
const char* AsyncioWaitKind(std::string_view qualname) {
  static constexpr std::pair<std::string_view, const char*> kWaits[] = {
      {"sleep", "asyncio_sleep"},           {"Event.wait", "asyncio_event"},
      {"Lock.acquire", "asyncio_lock"},     {"Condition.wait", "asyncio_condition"},
      {"Semaphore.acquire", "asyncio_semaphore"}, {"Queue.get", "asyncio_queue"},
      {"Queue.put", "asyncio_queue"}};
  for (const auto& [name, kind] : kWaits) {
    if (qualname == name) return kind;
  }
  return nullptr;
}

WaitParty TaskParty(const AsyncTask& task) {
  return WaitParty{WaiterKind::kTask, task.address, task.name};
}

std::optional<WaitTarget> AwaitOf(ObjectReader& objects, MethodQualnames& qualnames,
                                  const AsyncSnapshot& tasks, const AsyncTask& task) {
  if (task.fut_waiter == 0) return std::nullopt;  // ready to run its next step
  WaitTarget target{"future", task.fut_waiter, "", std::nullopt, ""};
  if (auto type = objects.TypeName(task.fut_waiter); type.ok()) target.type = *type;
  if (!task.coroutine_stack.empty()) {
    const CoroutineFrame& innermost = task.coroutine_stack.front();
    auto names = tasks.codes.find(innermost.code_address);
    if (names != tasks.codes.end()) {
      target.detail = qualnames.Of(innermost.frame_address, innermost.code_address, names->second.qualname);
    }
  }
  if (const AsyncTask* awaited = tasks.Find(task.fut_waiter)) {
    target.kind = "task";
    target.held_by = std::vector<WaitParty>{TaskParty(*awaited)};
  } else if (const char* kind = AsyncioWaitKind(target.detail)) {
    target.kind = kind;
  }
  return target;
}

// The objects bound to `names` in a task's innermost coroutine frame (0 where unbound).
std::vector<uint64_t> InnermostLocals(ObjectReader& objects, ValueFormatter& values,
                                      const AsyncTask& task,
                                      const std::vector<std::string_view>& names) {
  if (task.coroutine_stack.empty()) return std::vector<uint64_t>(names.size(), 0);
  const CoroutineFrame& innermost = task.coroutine_stack.front();
  return LocalObjects(objects, values, innermost.frame_address, innermost.code_address, names);
}

// The asyncio.Lock a task waits for: the `self` of its innermost coroutine, Lock.acquire.
uint64_t LockOf(ObjectReader& objects, ValueFormatter& values, const AsyncTask& task) {
  if (task.coroutine_stack.empty()) return 0;
  const CoroutineFrame& innermost = task.coroutine_stack.front();
  return SelfOf(objects, values, innermost.frame_address, innermost.code_address);
}

// asyncio.sleep(delay) holds its TimerHandle in `h` (loop.call_later), whose `_when` slot is
// the deadline on the loop's clock.
std::optional<SleepTimer> SleepTimerOf(ObjectReader& objects, ValueFormatter& values,
                                       const AsyncTask& task,
                                       std::optional<double> loop_clock_now) {
  const auto locals = InnermostLocals(objects, values, task, {"delay", "h"});
  if (locals[0] == 0 || locals[1] == 0) return std::nullopt;
  auto delay = values.ReadReal(locals[0]);
  auto when = RemoteCollections(objects).SlotAttribute(locals[1], "_when");
  if (!delay.ok() || !when.ok() || *when == 0) return std::nullopt;
  auto deadline = values.ReadReal(*when);
  if (!deadline.ok() || !std::isfinite(*delay) || !std::isfinite(*deadline)) return std::nullopt;
  SleepTimer timer{*delay, *deadline, std::nullopt};
  if (loop_clock_now) timer.remaining = *deadline - *loop_clock_now;
  return timer;
}

// Whether `value` is a function named __aexit__ (asyncio.Lock's comes from
// _ContextManagerMixin).
bool IsAexit(RemoteCollections& collections, uint64_t value) {
  auto qualname = collections.FunctionQualname(value);
  constexpr std::string_view kAexit = ".__aexit__";
  return qualname.ok() && qualname->size() > kAexit.size() &&
         std::string_view(*qualname).ends_with(kAexit);
}

// The object whose bound __aexit__ `value` is, else 0.
uint64_t AexitBoundTo(RemoteCollections& collections, uint64_t value) {
  if (value == 0) return 0;
  auto type = collections.objects().TypeName(value);
  if (!type.ok() || *type != "method") return 0;
  auto bound = collections.BoundMethod(value);
  if (!bound.ok()) return 0;
  return IsAexit(collections, bound->first) ? bound->second : 0;
}

// Each asyncio_lock wait gets its Lock as its address, and as held_by the tasks whose
// coroutine frames hold an `async with` block of the lock open (its __aexit__ on the value
// stack: with_blocks.h), other than those waiting for that lock (`async with` pushes it
// before it awaits __aenter__).
void AddAsyncLockHolders(ObjectReader& objects, ValueFormatter& values, CodeCache& codes,
                         const AsyncSnapshot& tasks, std::vector<Wait>& waits) {
  std::map<uint64_t, std::set<uint64_t>> waiting;  // lock -> the tasks waiting for it
  for (Wait& wait : waits) {
    if (!wait.waits_for || wait.waits_for->kind != "asyncio_lock") continue;
    const AsyncTask* task = tasks.Find(wait.waiter.id);
    const uint64_t lock = task ? LockOf(objects, values, *task) : 0;
    if (lock == 0) continue;
    wait.waits_for->address = lock;
    auto type = objects.TypeName(lock);
    wait.waits_for->type = type.ok() ? *type : "";
    waiting[lock].insert(task->address);
  }
  if (waiting.empty()) return;
  RemoteCollections collections(objects);
  const ExitRecognizers aexits{
      [&](uint64_t value) { return AexitBoundTo(collections, value); },
      [&](uint64_t value) {
        auto type = objects.TypeName(value);
        return value != 0 && type.ok() && *type == "function" && IsAexit(collections, value);
      },
      nullptr};
  std::map<uint64_t, std::vector<WaitParty>> holders;
  size_t frames = 0;
  for (const AsyncTask& task : tasks.tasks) {
    if (task.done()) continue;
    size_t in_task = 0;
    for (const CoroutineFrame& frame : task.coroutine_stack) {
      if (++in_task > kMaxHolderFramesPerTask || ++frames > kMaxHolderFramesForTasks) break;
      auto stack = ValueStackOf(objects, codes, frame.frame_address);
      if (!stack.ok()) continue;
      for (uint64_t lock : OpenWithBlocks(*stack, aexits)) {
        auto found = waiting.find(lock);
        if (found == waiting.end() || found->second.count(task.address)) continue;
        holders[lock].push_back(TaskParty(task));
      }
    }
  }
  for (Wait& wait : waits) {
    if (!wait.waits_for || wait.waits_for->kind != "asyncio_lock") continue;
    auto found = holders.find(wait.waits_for->address);
    if (found != holders.end()) wait.waits_for->held_by = found->second;
  }
}

}  // namespace

std::vector<Wait> TaskWaits(ObjectReader& objects, ValueFormatter& values, CodeCache& codes,
                            const AsyncSnapshot& tasks, std::optional<double> loop_clock_now) {
  std::vector<Wait> waits;
  MethodQualnames qualnames(objects);
  for (const AsyncTask& task : tasks.tasks) {
    if (task.state != TaskState::kPending || task.running) continue;
    Wait wait{TaskParty(task), AwaitOf(objects, qualnames, tasks, task)};
    if (wait.waits_for && wait.waits_for->kind == "asyncio_sleep") {
      wait.waits_for->sleep = SleepTimerOf(objects, values, task, loop_clock_now);
    }
    if (wait.waits_for && wait.waits_for->kind != "task") {
      wait.waits_for->nothing_can_wake = NothingCanWake(objects, task);
    }
    waits.push_back(std::move(wait));
  }
  AddAsyncLockHolders(objects, values, codes, tasks, waits);
  return waits;
}

}  // namespace pyunwind

#include "core/waits/task_waits.h"

#include <string_view>
#include <utility>

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

std::optional<WaitTarget> AwaitOf(ObjectReader& objects, const AsyncSnapshot& tasks,
                                  const AsyncTask& task) {
  if (task.fut_waiter == 0) return std::nullopt;  // ready to run its next step
  WaitTarget target{"future", task.fut_waiter, "", std::nullopt, ""};
  if (auto type = objects.TypeName(task.fut_waiter); type.ok()) target.type = *type;
  if (!task.coroutine_stack.empty()) {
    auto names = tasks.codes.find(task.coroutine_stack.front().code_address);
    if (names != tasks.codes.end()) target.detail = names->second.qualname;
  }
  if (const AsyncTask* awaited = tasks.Find(task.fut_waiter)) {
    target.kind = "task";
    target.held_by = std::vector<WaitParty>{TaskParty(*awaited)};
  } else if (const char* kind = AsyncioWaitKind(target.detail)) {
    target.kind = kind;
  }
  return target;
}

}  // namespace

std::vector<Wait> TaskWaits(ObjectReader& objects, const AsyncSnapshot& tasks) {
  std::vector<Wait> waits;
  for (const AsyncTask& task : tasks.tasks) {
    if (task.state != TaskState::kPending || task.running) continue;
    waits.push_back(Wait{TaskParty(task), AwaitOf(objects, tasks, task)});
  }
  return waits;
}

}  // namespace pyunwind

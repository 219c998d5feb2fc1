// What py-waits reports: for each thread and pending asyncio task, what it is blocked on and,
// where the target records it, who can release it; and the cycles of that waits-for graph.
// Plain data, as core/walk/model.h: what the renderers print and the tests compare.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyunwind {

enum class WaiterKind : uint8_t { kThread, kTask };
// "thread", "task" (the JSON's words).
inline const char* WaiterKindName(WaiterKind kind) {
  return kind == WaiterKind::kThread ? "thread" : "task";
}

// A thread (id: its ident, threading.get_ident()) or a task (id: its address, id(task)).
struct WaitParty {
  WaiterKind kind = WaiterKind::kThread;
  uint64_t id = 0;
  std::string name;
  bool operator==(const WaitParty& o) const { return kind == o.kind && id == o.id; }
};

// A ThreadPoolExecutor as its worker threads show it (0: an address not read).
struct ExecutorWorkers {
  uint64_t address = 0;
  size_t workers = 0;       // threads running its worker loop
  size_t idle_workers = 0;  // of them, those running no work item
};

// An asyncio.sleep: its delay and its TimerHandle's deadline, both in seconds of the loop's
// clock (time.monotonic()); how long is left where the clock can be read now (a live process
// of this machine), else null.
struct SleepTimer {
  double delay = 0;
  double deadline = 0;
  std::optional<double> remaining;
};

// What a thread or task waits for. `kind` is one of the words of docs/json-output.md
// ("rlock", "lock", "join", "gil", "event", "condition", "semaphore", "queue_get",
// "queue_put", "sleep", "io", "concurrent_future", "task", "future", "asyncio_lock",
// "asyncio_event", "asyncio_queue", "asyncio_sleep", "import_lock").
struct WaitTarget {
  std::string kind;
  uint64_t address = 0;  // the object waited on; 0 where there is none (sleep, I/O, the GIL)
  std::string type;      // its type's name ("_thread.RLock"); empty where address is 0
  // Who can release it; null where the target records no holder (a plain Lock held by no
  // frame, an Event, a sleep). An empty list: recorded, and held by nobody it knows.
  std::optional<std::vector<WaitParty>> held_by;
  std::string detail;    // the call or function that waits, as the frames show it
  // A concurrent.futures Future: its _state ("PENDING", "RUNNING", ...); else empty.
  std::string state = "";
  // A queued Future: the ThreadPoolExecutor whose work queue holds it.
  std::optional<ExecutorWorkers> executor = std::nullopt;
  // An asyncio_sleep whose timer was read.
  std::optional<SleepTimer> sleep = std::nullopt;
  // Any one of held_by can release it (a queued Future's busy workers: the first to finish
  // takes the next item), not only all of them: a cycle needs every one to wait on the waiter.
  bool released_by_any = false;
  // A task's future that nothing but the task holds (unwakeable_awaits.h): only cancelling
  // the task ends the wait.
  bool nothing_can_wake = false;
};

struct Wait {
  WaitParty waiter;
  std::optional<WaitTarget> waits_for;  // null: running, or no known wait
};

struct WaitReport {
  std::vector<Wait> waits;
  // Each cycle once, starting from its least (kind, id) party; each party waits for the next,
  // the last for the first.
  std::vector<std::vector<WaitParty>> cycles;
  std::vector<std::string> warnings;
};

}  // namespace pyunwind

// A thread blocked in concurrent.futures' Future.result() (or .exception()): the Future (that
// frame's self, under the threading.py frames of its Condition.wait), its _state, and who can
// release it. ThreadPoolExecutor workers are the threads whose outermost frames run _worker
// (concurrent/futures/thread.py; its work_queue local names their executor); a busy one runs
// _WorkItem.run, whose self's `future` is the Future it runs. A RUNNING Future is held by the
// worker running it; a queued (PENDING) one, found in a work queue, by that executor's busy
// workers when none is idle: the first of them to finish runs the next item.
#pragma once

#include <optional>
#include <vector>

#include "core/objects/remote_collections.h"
#include "core/objects/values.h"
#include "core/walk/model.h"
#include "core/waits/method_qualnames.h"
#include "core/waits/wait_model.h"

namespace pyunwind {

class FutureWaitReader {
 public:
  FutureWaitReader(ObjectReader& objects, const Interpreter& interp, MethodQualnames& qualnames);

  // The thread's wait on a Future; null where it is not in Future.result() / exception().
  std::optional<WaitTarget> WaitOf(const Thread& thread);

 private:
  struct Worker {
    const Thread* thread = nullptr;
    uint64_t work_queue = 0;
    uint64_t executor = 0;
    uint64_t future = 0;  // the Future its work item runs; 0: idle
  };

  void FindWorkers();
  std::optional<Worker> WorkerOf(const Thread& thread);
  // The work queue holding a work item of `future`, else 0.
  uint64_t QueueHolding(uint64_t future);
  // The items not yet taken of a _queue.SimpleQueue (3.6: a queue.Queue), at most `max_items`.
  std::vector<uint64_t> QueuedItems(uint64_t queue, size_t max_items);
  uint64_t LocalNamed(const Frame& frame, std::string_view name);

  ObjectReader& objects_;
  const Interpreter& interp_;
  MethodQualnames& qualnames_;
  RemoteCollections collections_;
  ValueFormatter values_;
  std::optional<std::vector<Worker>> workers_;  // read at the first Future wait
  size_t queued_items_read_ = 0;
};

}  // namespace pyunwind

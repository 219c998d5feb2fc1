#include "core/waits/future_waits.h"

#include <set>
#include <string_view>

#include "core/base/limits.h"
#include "core/walk/locals.h"
#include "core/waits/thread_waits.h"

namespace pyunwind {
namespace {

// A file of the concurrent.futures package: "thread.py", "_base.py".
bool IsExecutorFile(std::string_view filename, std::string_view file) {
  return filename.ends_with(file) &&
         filename.substr(0, filename.size() - file.size()).ends_with("/concurrent/futures/");
}

}  // namespace

FutureWaitReader::FutureWaitReader(ObjectReader& objects, const Interpreter& interp,
                                   MethodQualnames& qualnames)
    : objects_(objects), interp_(interp), qualnames_(qualnames), collections_(objects),
      values_(objects) {}

uint64_t FutureWaitReader::LocalNamed(const Frame& frame, std::string_view name) {
  return LocalObjects(objects_, values_, frame.frame_address, frame.code_address, {name})[0];
}

std::optional<FutureWaitReader::Worker> FutureWaitReader::WorkerOf(const Thread& thread) {
  // Outermost first: the _worker loop, then the frame it calls (a busy worker's _WorkItem.run;
  // an idle one's loop is its innermost Python frame, in work_queue.get()).
  const Frame* loop = nullptr;
  const Frame* called = nullptr;
  size_t seen = 0;
  for (auto frame = thread.frames.rbegin(); frame != thread.frames.rend(); ++frame) {
    if (frame->kind != FrameKind::kPython) continue;
    if (loop != nullptr) {
      called = &*frame;
      break;
    }
    if (++seen > kMaxWorkerLoopDepth) return std::nullopt;
    if (frame->name() == "_worker" && IsExecutorFile(frame->filename(), "thread.py")) {
      loop = &*frame;
    }
  }
  if (loop == nullptr) return std::nullopt;
  Worker worker{&thread, LocalNamed(*loop, "work_queue"), 0, 0};
  if (worker.work_queue == 0) return std::nullopt;
  if (uint64_t reference = LocalNamed(*loop, "executor_reference")) {
    auto executor = collections_.WeakrefTarget(reference);
    if (executor.ok() && !values_.IsNone(*executor)) worker.executor = *executor;
  }
  if (called != nullptr && qualnames_.Of(*called) == "_WorkItem.run" &&
      IsExecutorFile(called->filename(), "thread.py")) {
    if (uint64_t item = LocalNamed(*called, "self")) {
      auto future = collections_.InstanceAttribute(item, "future");
      if (future.ok()) worker.future = *future;
    }
  }
  return worker;
}

void FutureWaitReader::FindWorkers() {
  workers_.emplace();
  std::set<uint64_t> queues;
  for (const Thread& thread : interp_.threads) {
    auto worker = WorkerOf(thread);
    if (!worker) continue;
    if (!queues.count(worker->work_queue) && queues.size() >= kMaxExecutors) continue;
    queues.insert(worker->work_queue);
    workers_->push_back(*worker);
  }
}

std::vector<uint64_t> FutureWaitReader::QueuedItems(uint64_t queue, size_t max_items) {
  // 3.6's executors queue on a queue.Queue: its items are the deque `queue`.
  if (auto type = objects_.TypeName(queue); type.ok() && *type == "Queue") {
    auto deque = collections_.InstanceAttribute(queue, "queue");
    if (!deque.ok() || *deque == 0) return {};
    auto items = collections_.DequeItems(*deque, kMaxContainerEntries);
    if (!items.ok()) return {};
    if (items->size() > max_items) items->resize(max_items);
    return std::move(*items);
  }
  const Layout::SimpleQueue& l = objects_.layout().simple_queue;
  RemoteMemory& memory = objects_.memory();
  if (l.list != kAbsent) {
    auto list = memory.ReadPointer(queue + static_cast<uint64_t>(l.list));
    auto position = memory.ReadValue<int64_t>(queue + static_cast<uint64_t>(l.list_position));
    if (!list || !position || *position < 0) return {};
    auto items = collections_.ListItems(*list, kMaxContainerEntries);
    if (!items.ok() || static_cast<uint64_t>(*position) > items->size()) return {};
    items->erase(items->begin(), items->begin() + *position);
    if (items->size() > max_items) items->resize(max_items);
    return std::move(*items);
  }
  if (l.ring_items == kAbsent) return {};
  auto get_index = memory.ReadValue<int64_t>(queue + static_cast<uint64_t>(l.ring_get_index));
  auto slots = memory.ReadPointer(queue + static_cast<uint64_t>(l.ring_items));
  auto capacity = memory.ReadValue<int64_t>(queue + static_cast<uint64_t>(l.ring_capacity));
  auto count = memory.ReadValue<int64_t>(queue + static_cast<uint64_t>(l.ring_count));
  if (!get_index || !slots || !capacity || !count) return {};
  if (*capacity <= 0 || *capacity > kMaxRingCapacity || *count < 0 || *count > *capacity ||
      *get_index < 0 || *get_index >= *capacity) {
    return {};
  }
  std::vector<uint64_t> items;
  for (int64_t i = 0; i < *count && items.size() < max_items; ++i) {
    auto item = memory.ReadPointer(*slots + static_cast<uint64_t>((*get_index + i) % *capacity) * 8);
    if (!item) break;
    items.push_back(*item);
  }
  return items;
}

uint64_t FutureWaitReader::QueueHolding(uint64_t future) {
  std::set<uint64_t> read;
  for (const Worker& worker : *workers_) {
    if (!read.insert(worker.work_queue).second) continue;
    if (queued_items_read_ >= kMaxQueuedWorkItems) return 0;
    const auto items = QueuedItems(worker.work_queue, kMaxQueuedWorkItems - queued_items_read_);
    queued_items_read_ += items.size();
    for (uint64_t item : items) {
      if (item == 0 || values_.IsNone(item)) continue;  // None: a worker's wake-up
      auto queued = collections_.InstanceAttribute(item, "future");
      if (queued.ok() && *queued == future) return worker.work_queue;
    }
  }
  return 0;
}

std::optional<WaitTarget> FutureWaitReader::WaitOf(const Thread& thread) {
  // The innermost frame that is not threading.py's must be the Future's result() or exception().
  const Frame* waiting = nullptr;
  std::string qualname;
  size_t seen = 0;
  for (const Frame& frame : thread.frames) {
    if (frame.kind != FrameKind::kPython) continue;
    if (++seen > kMaxFutureWaitFrames) return std::nullopt;
    if (std::string_view(frame.filename()).ends_with("/threading.py")) continue;
    if (!IsExecutorFile(frame.filename(), "_base.py")) return std::nullopt;
    qualname = qualnames_.Of(frame);
    if (qualname != "Future.result" && qualname != "Future.exception") return std::nullopt;
    waiting = &frame;
    break;
  }
  if (waiting == nullptr) return std::nullopt;
  WaitTarget target{"concurrent_future", LocalNamed(*waiting, "self"), "", std::nullopt, qualname};
  if (target.address == 0) return target;
  if (auto type = objects_.TypeName(target.address); type.ok()) target.type = *type;
  auto state = collections_.InstanceAttribute(target.address, "_state");
  if (!state.ok() || *state == 0) return target;
  auto text = objects_.ReadString(*state, 32);
  if (!text.ok()) return target;
  target.state = *text;
  if (!workers_) FindWorkers();
  if (target.state == "RUNNING") {
    for (const Worker& worker : *workers_) {
      if (worker.future != target.address) continue;
      if (!target.held_by) target.held_by.emplace();
      target.held_by->push_back(ThreadParty(*worker.thread));
    }
    return target;
  }
  if (target.state != "PENDING") {
    target.held_by.emplace();  // done or cancelled: its waiters are being woken
    return target;
  }
  const uint64_t queue = QueueHolding(target.address);
  if (queue == 0) return target;
  ExecutorWorkers executor;
  std::vector<WaitParty> busy;
  for (const Worker& worker : *workers_) {
    if (worker.work_queue != queue) continue;
    if (worker.executor != 0) executor.address = worker.executor;
    ++executor.workers;
    if (worker.future == 0) {
      ++executor.idle_workers;
    } else {
      busy.push_back(ThreadParty(*worker.thread));
    }
  }
  target.executor = executor;
  target.held_by.emplace();
  if (executor.idle_workers == 0) {
    target.held_by = std::move(busy);
    target.released_by_any = true;
  }
  return target;
}

}  // namespace pyunwind

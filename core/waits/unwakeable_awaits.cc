#include "core/waits/unwakeable_awaits.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/limits.h"
#include "core/objects/remote_collections.h"
#include "core/asyncio/coroutine_frames.h"

namespace pyunwind {
namespace {

// The attributes through which asyncio's primitives hold the futures of their waiters.
constexpr std::string_view kWaiterQueues[] = {"_waiters", "_getters", "_putters"};

// The strong references found inside a task, by object, and the objects looked inside.
class OwnedReferences {
 public:
  explicit OwnedReferences(ObjectReader& objects) : objects_(objects), collections_(objects) {}

  void Found(uint64_t object) {
    if (object != 0) ++found_[object];
  }

  // Whether every strong reference to `object` has been found.
  bool AllFound(uint64_t object) {
    auto count = objects_.Refcount(object);
    auto found = found_.find(object);
    return count.ok() && found != found_.end() && found->second == *count;
  }

  // Looks inside each object all of whose references were found, until nothing more is:
  // false when the bound was reached (then nothing may be claimed).
  bool LookInsideOwned() {
    for (bool more = true; more;) {
      more = false;
      std::vector<uint64_t> candidates;
      for (const auto& [object, count] : found_) {
        if (!looked_inside_.count(object)) candidates.push_back(object);
      }
      for (uint64_t object : candidates) {
        if (!AllFound(object)) continue;
        if (looked_inside_.size() >= kMaxUnwakeableOwnedObjects) return false;
        looked_inside_.insert(object);
        more |= LookInside(object);
      }
    }
    return true;
  }

 private:
  // Counts the references `object` holds, where its type is one that can hold a waiter's
  // future; whether it held any.
  bool LookInside(uint64_t object) {
    auto type = objects_.TypeName(object);
    if (!type.ok()) return false;
    const Layout::FutureHolders& h = objects_.layout().future_holders;
    if (*type == "_asyncio.FutureIter" && h.future_iter_future != kAbsent) {
      auto future = objects_.memory().ReadPointer(object + h.future_iter_future);
      if (!future || *future == 0) return false;
      Found(*future);
      return true;
    }
    if (*type == "collections.deque") return LookInsideDeque(object);
    // An instance's attributes are its own references unless its dict is shared.
    auto dict = collections_.InstanceDict(object);
    if (!dict.ok()) return false;
    if (*dict != 0) {
      auto dict_count = objects_.Refcount(*dict);
      if (!dict_count.ok() || *dict_count != 1) return false;
    }
    bool held = false;
    for (std::string_view name : kWaiterQueues) {
      auto queue = collections_.InstanceAttribute(object, name);
      if (!queue.ok() || *queue == 0) continue;
      Found(*queue);
      held = true;
    }
    return held;
  }

  // A deque's items (at most kMaxUnwakeableOwnedObjects).
  bool LookInsideDeque(uint64_t deque) {
    auto items = collections_.DequeItems(deque, kMaxUnwakeableOwnedObjects);
    if (!items.ok()) return false;
    for (uint64_t item : *items) Found(item);
    return !items->empty();
  }

  ObjectReader& objects_;
  RemoteCollections collections_;
  std::map<uint64_t, uint64_t> found_;
  std::set<uint64_t> looked_inside_;
};

// Whether `callback` is `task`'s wakeup: 3.12+ a builtin method bound to the task, 3.7-3.11 a
// TaskWakeupMethWrapper of it.
bool IsWakeupOf(ObjectReader& objects, uint64_t callback, uint64_t task) {
  auto type = objects.TypeName(callback);
  if (!type.ok()) return false;
  const Layout& layout = objects.layout();
  int32_t task_at = kAbsent;
  if (*type == "builtin_function_or_method") task_at = layout.cfunction.m_self;
  if (*type == "TaskWakeupMethWrapper") task_at = layout.future_holders.wakeup_wrapper_task;
  if (task_at == kAbsent) return false;
  auto bound = objects.memory().ReadPointer(callback + task_at);
  return bound && *bound == task;
}

// Whether the future's one callback is `task`'s wakeup.
bool OnlyWakesTask(ObjectReader& objects, uint64_t future, uint64_t task) {
  const Layout::Task& t = objects.layout().task;
  if (t.callback0 == kAbsent || t.callbacks == kAbsent) return false;
  auto first = objects.memory().ReadPointer(future + t.callback0);
  auto rest = objects.memory().ReadPointer(future + t.callbacks);
  if (!first || !rest || !IsWakeupOf(objects, *first, task)) return false;
  if (*rest == 0) return true;
  auto items = RemoteCollections(objects).ListItems(*rest, 1);
  return items.ok() && items->empty();
}

}  // namespace

bool NothingCanWake(ObjectReader& objects, const AsyncTask& task) {
  const uint64_t future = task.fut_waiter;
  if (future == 0 || objects.layout().free_threaded || task.coroutines_cut != 0 ||
      task.coroutine_stack.empty() || task.coroutine_stack.size() > kMaxUnwakeableFrames) {
    return false;
  }
  auto type = objects.TypeName(future);
  if (!type.ok() || *type != "_asyncio.Future" || !OnlyWakesTask(objects, future, task.address)) {
    return false;
  }
  OwnedReferences owned(objects);
  owned.Found(future);  // the task's fut_waiter
  for (const CoroutineFrame& frame : task.coroutine_stack) {
    auto references = SuspendedFrameReferences(objects, frame.frame_address);
    if (!references) return false;
    for (uint64_t object : *references) owned.Found(object);
  }
  return owned.LookInsideOwned() && owned.AllFound(future);
}

}  // namespace pyunwind

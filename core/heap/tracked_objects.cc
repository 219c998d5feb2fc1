#include "core/heap/tracked_objects.h"

#include <fmt/format.h>

#include "core/base/work_budget.h"

namespace pyunwind {

TrackedObjects::TrackedObjects(ObjectReader& objects, uint64_t max_list_objects,
                               std::vector<std::string>& warnings, const MimallocLimits& mimalloc)
    : objects_(objects), max_list_objects_(max_list_objects), mimalloc_(mimalloc),
      warnings_(warnings), mask_(objects.layout().gc.link_mask) {}

bool TrackedObjects::Readable(const Layout& l) {
  if (l.free_threaded) return l.mimalloc.tstate_heaps != kAbsent;
  return l.gc.generations != kAbsent && l.interp.gc != kAbsent;
}

bool TrackedObjects::OutOfBudget() {
  RemoteMemory& memory = objects_.memory();
  if (memory.budget().Exhausted() || memory.BudgetExhausted()) stopped_ = out_of_budget_ = true;
  return out_of_budget_;
}

void TrackedObjects::Damaged(std::string what) {
  if (OutOfBudget()) return;
  if (damaged_++ == 0) first_damage_ = std::move(what);
}

void TrackedObjects::Walk(const std::vector<HeapInterpreter>& interpreters,
                          const std::function<void(uint64_t object)>& visit) {
  for (const HeapInterpreter& interp : interpreters) {
    if (objects_.layout().free_threaded) {
      WalkMimalloc(interp, visit);
    } else {
      WalkLists(interp.address, visit);
    }
    if (stopped_ || OutOfBudget()) break;
  }
  // The first damage seen, and how much there was: one warning.
  if (damaged_ != 0) {
    warnings_.push_back(fmt::format("{} damaged objects or links were not counted; the "
                                    "first: {}",
                                    damaged_, first_damage_));
  }
  if (out_of_budget_) {
    warnings_.push_back(objects_.memory().BudgetWarning().value_or(
        "the walk of the tracked objects stopped: output is incomplete...truncated"));
  }
}

void TrackedObjects::WalkLists(uint64_t interp, const std::function<void(uint64_t object)>& visit) {
  const Layout& l = objects_.layout();
  const uint64_t gc = interp + uint64_t(l.interp.gc);
  // A collection moves objects onto lists of its own and keeps gc_refs in _gc_prev.
  if (l.interp.gc_collecting != kAbsent &&
      objects_.memory().ReadValue<int32_t>(interp + l.interp.gc_collecting).value_or(0) != 0) {
    warnings_.push_back(fmt::format(
        "interpreter {:#x} was collecting garbage: objects it was examining are not on its "
        "lists, and some links may read as damaged",
        interp));
  }
  uint64_t generations = gc + uint64_t(l.gc.generations);
  if (l.gc.generation0 != kAbsent) {
    // Where the interpreter itself finds its first list, if that is inside the struct, before
    // the pointer (layout.h).
    const uint64_t lists_size = uint64_t(l.gc.generation_count) * uint64_t(l.gc.generation_size);
    const auto first = objects_.memory().ReadPointer(gc + uint64_t(l.gc.generation0));
    if (first && *first >= gc && *first - gc + lists_size <= uint64_t(l.gc.generation0)) {
      generations = *first;
    }
  }
  for (int32_t i = 0; i < l.gc.generation_count && !stopped_; ++i) {
    const std::string name = fmt::format("generation {}", i);
    WalkList(generations + uint64_t(i) * l.gc.generation_size, name.c_str(), visit);
  }
  if (!stopped_) WalkList(gc + l.gc.permanent, "permanent generation", visit);
}

void TrackedObjects::WalkMimalloc(const HeapInterpreter& interp,
                                  const std::function<void(uint64_t object)>& visit) {
  // The mimalloc walk's objects and damage, into this walk's.
  class Sink final : public HeapObjectSink {
   public:
    Sink(TrackedObjects& walk, const std::function<void(uint64_t object)>& visit)
        : walk_(walk), visit_(visit) {}
    bool Object(uint64_t object) override {
      visit_(object);
      return !walk_.stopped_;
    }
    void Damaged(std::string what) override { walk_.Damaged(std::move(what)); }
    bool Stopped() override { return walk_.stopped_ || walk_.OutOfBudget(); }

   private:
    TrackedObjects& walk_;
    const std::function<void(uint64_t object)>& visit_;
  } sink(*this, visit);
  MimallocWalkResult heaps =
      VisitMimallocObjects(objects_, interp.address, interp.thread_states, sink, mimalloc_);
  if (heaps.cut) complete_ = false;
  for (std::string& warning : heaps.warnings) warnings_.push_back(std::move(warning));
}

// One list, from its head's first node round to the head again.
void TrackedObjects::WalkList(uint64_t head, const char* list_name,
                              const std::function<void(uint64_t object)>& visit) {
  RemoteMemory& memory = objects_.memory();
  auto first = memory.ReadPointer(head);
  if (!first) {
    Damaged(fmt::format("cannot read the head of the {} list at {:#x}", list_name, head));
    return;
  }
  const uint64_t head_size = objects_.layout().gc.head_size;
  uint64_t previous = head;
  uint64_t node = *first & mask_;
  for (uint64_t walked = 0; node != head; ++walked) {
    if (walked >= max_list_objects_) {
      complete_ = false;
      warnings_.push_back(fmt::format(
          "the {} list has more than {} objects: the rest are not counted...truncated",
          list_name, max_list_objects_));
      return;
    }
    if (!memory.budget().Spend(Work::kHeapObjects, 1)) {
      stopped_ = out_of_budget_ = true;
      return;
    }
    uint64_t links[2];  // _gc_next, _gc_prev
    if (node % 8 != 0 || !memory.Read(node, links, sizeof links)) {
      if (OutOfBudget()) return;
      Damaged(fmt::format("cannot read the object at {:#x} in the {} list: the list is cut "
                          "there", node + head_size, list_name));
      return;
    }
    if ((links[1] & mask_) != previous) {
      Damaged(fmt::format("the object at {:#x} in the {} list does not link back to the one "
                          "before it: the list is cut there",
                          node + head_size, list_name));
      return;
    }
    visit(node + head_size);
    if (stopped_) return;
    previous = node;
    node = links[0] & mask_;
  }
}

}  // namespace pyunwind

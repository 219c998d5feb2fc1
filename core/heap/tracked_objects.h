// Every object the collector tracks in the given interpreters, handed one at a time to a
// visitor: py-heap's census counts them, py-bt --greenlets picks out the greenlets. Default
// builds (3.11+): the collector's lists (the generations and the permanent generation of
// gc.freeze()); free-threaded builds (3.13, 3.14): the mimalloc heaps, as gc.get_objects()
// visits them (mimalloc_heaps.h).
//
// Hostile-safe: each list is circular, through its head; a node whose _gc_prev does not point
// back at the node before it, or that cannot be read, is a broken link: counted as damaged
// and that list is cut there (one warning for all), the other lists are still walked. Each
// list is capped (max_list_objects) and every object spends the work budget
// (Work::kHeapObjects), so Ctrl-C and the budget stop it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/heap/mimalloc_heaps.h"
#include "core/objects/objects.h"

namespace pyunwind {

struct HeapInterpreter {
  uint64_t address = 0;
  // Its thread states: on free-threaded builds each holds mimalloc heaps of objects.
  std::vector<uint64_t> thread_states;
};

class TrackedObjects {
 public:
  // Warnings (a cap reached, a collection under way, the damage, a budget stop) are appended
  // to `warnings` as they are met.
  TrackedObjects(ObjectReader& objects, uint64_t max_list_objects,
                 std::vector<std::string>& warnings, const MimallocLimits& mimalloc = {});

  // Whether the layout tells where the objects are (3.11+ default builds: the lists; 3.13 and
  // 3.14 free-threaded: the mimalloc heaps); none is walked else.
  static bool Readable(const Layout& layout);

  // Calls `visit` with each object's address (past its GC header), every interpreter in turn,
  // until the end, the budget or Stop().
  void Walk(const std::vector<HeapInterpreter>& interpreters,
            const std::function<void(uint64_t object)>& visit);

  // The visitor met an object it cannot read: counted, the first one said in the warning.
  void Damaged(std::string what);
  // The visitor has what it wanted, or a budget ran out under it.
  void Stop() { stopped_ = true; }
  // True when a read failed because a budget ran out (the walk then stops).
  bool OutOfBudget();

  bool stopped() const { return stopped_; }
  uint64_t damaged() const { return damaged_; }
  // No list was cut (a cap, a broken link), nothing damaged, no budget stop.
  bool complete() const { return complete_ && damaged_ == 0 && !stopped_; }
  bool out_of_budget() const { return out_of_budget_; }

 private:
  void WalkLists(uint64_t interp, const std::function<void(uint64_t object)>& visit);
  void WalkList(uint64_t head, const char* list_name,
                const std::function<void(uint64_t object)>& visit);
  void WalkMimalloc(const HeapInterpreter& interp,
                    const std::function<void(uint64_t object)>& visit);

  ObjectReader& objects_;
  const uint64_t max_list_objects_;
  const MimallocLimits mimalloc_;
  std::vector<std::string>& warnings_;
  const uint64_t mask_;
  uint64_t damaged_ = 0;
  std::string first_damage_;
  bool complete_ = true;
  bool stopped_ = false;
  bool out_of_budget_ = false;
};

}  // namespace pyunwind

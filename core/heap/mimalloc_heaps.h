// The objects of a free-threaded build, found as gc.get_objects() finds them
// (Python/gc_free_threading.c, gc_visit_heaps): the used blocks of every initialized thread
// state's two GC heaps (mimalloc heaps _Py_MIMALLOC_HEAP_GC and _GC_PRE, whose objects start
// two words into their block) and of the GC pages in the interpreter's pool of abandoned
// segments (the heaps of threads that ended), those whose ob_gc_bits say tracked (frozen ones
// too, as the default builds' permanent generation).
//
// A block is used unless it is on its page's free, local_free or thread-free list
// (mi_heap_area_visit_blocks). Hostile-safe: every list (page queues, segments, free lists) is
// capped, and a page or segment met twice, or a free block met twice, is damage; a page whose
// sizes do not fit its slices or whose free lists leave it is damaged and not counted, and the
// walk goes on with the next page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/limits.h"
#include "core/objects/objects.h"

namespace pyunwind {

// Receives the walk's objects and damage.
class HeapObjectSink {
 public:
  virtual ~HeapObjectSink() = default;
  // A tracked object; false stops the walk (a limit, the budget, Ctrl-C).
  virtual bool Object(uint64_t object) = 0;
  // Something unreadable or impossible, in one sentence: counted, the walk goes on.
  virtual void Damaged(std::string what) = 0;
  // The walk should stop (the budget ran out, Ctrl-C, a limit).
  virtual bool Stopped() = 0;
};

struct MimallocLimits {
  uint64_t max_pages = kMaxMimallocPages;
  uint64_t max_segments = kMaxAbandonedSegments;
};

struct MimallocWalkResult {
  uint64_t pages = 0;   // pages whose blocks were looked at
  uint64_t blocks = 0;  // used blocks among them
  bool cut = false;     // a cap stopped the walk (a warning says which)
  std::vector<std::string> warnings;
};

// Visits the tracked objects of interpreter `interp`, whose thread states are
// `thread_states`, into `sink`. Needs layout().mimalloc.tstate_heaps.
MimallocWalkResult VisitMimallocObjects(ObjectReader& objects, uint64_t interp,
                                        const std::vector<uint64_t>& thread_states,
                                        HeapObjectSink& sink, const MimallocLimits& limits = {});

}  // namespace pyunwind

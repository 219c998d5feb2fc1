// A free-threaded interpreter's mimalloc heaps (core/heap/mimalloc_heaps.h), faked on the fake
// 3.11 process (tests/fake_process311.h): one thread state whose heaps share a thread-local
// data block with an empty pool of abandoned segments, and pages of GC objects in 64 KiB
// slices of segments the caller maps. Blocks are 64 bytes, each a free-threaded object header
// (ob_gc_bits at 11, ob_type at 24). limits_test's caps and bench/mimalloc_heap_benchmark
// build their heaps with it.
#pragma once

#include <cstdint>

#include "core/layout/layout.h"
#include "tests/fake_process311.h"

namespace pyunwind::testing {

class FakeMimallocHeaps {
 public:
  static constexpr uint64_t kBlock = 64;

  explicit FakeMimallocHeaps(fake311::Process& p) : p_(p), layout_(p.layout) {
    layout_.free_threaded = true;
    layout_.object.ob_type = 24;
    layout_.gc.head_size = 0;
    layout_.mimalloc.tstate_heaps = 64;
    const Layout::Mimalloc& m = layout_.mimalloc;
    tstate_ = p.heap.Alloc(64 + m.heap_count * m.heap_size + m.tld_size + 64);
    const uint64_t tld = Heap(m.heap_count);
    for (int32_t id = 0; id < m.heap_count; ++id) {
      p.target.PutU64(Heap(id) + m.heap_tld, tld);
      p.target.Put<uint8_t>(Heap(id) + m.heap_tag, uint8_t(id));
    }
    p.target.Put<int32_t>(tld + m.tld_size, 1);  // initialized
    // An empty pool of abandoned segments inside the interpreter state.
    pool_ = p.interp + p.layout.interp.size - 72;
    p.target.PutU64(tld + m.tld_abandoned_pool, pool_);
  }

  const Layout& layout() const { return layout_; }
  uint64_t tstate() const { return tstate_; }
  uint64_t pool() const { return pool_; }

  uint64_t Heap(int32_t id) const {
    return tstate_ + 64 + uint64_t(id) * uint64_t(layout_.mimalloc.heap_size);
  }

  // Slice `slice` of `segment` as a page of the GC heap holding `capacity` blocks, `used` of
  // them in use, queued after `after` (0: first in queue 0 of the GC heap). Returns the page.
  uint64_t AddPage(uint64_t segment, uint64_t slice, uint16_t capacity, uint32_t used,
                   uint64_t after) {
    const Layout::Mimalloc& m = layout_.mimalloc;
    const uint64_t page = segment + m.segment_slices + slice * m.page_size;
    p_.target.Put<uint32_t>(page + m.page_slice_count, 1);
    p_.target.Put<uint16_t>(page + m.page_capacity, capacity);
    p_.target.Put<uint32_t>(page + m.page_used, used);
    p_.target.Put<uint32_t>(page + m.page_block_size, kBlock);
    p_.target.PutU64(page + m.page_heap, Heap(m.heap_gc));
    p_.target.PutU64(after ? after + m.page_next : Heap(m.heap_gc) + m.heap_pages, page);
    return page;
  }

  // Block i of slice `slice` of `segment`: small blocks start three blocks into their slice.
  uint64_t Block(uint64_t segment, uint64_t slice, uint64_t i) const {
    return segment + (slice << layout_.mimalloc.slice_shift) + 3 * kBlock + i * kBlock;
  }

  // Makes `block` a tracked object of `type`.
  void Track(uint64_t block, uint64_t type) {
    p_.target.PutU64(block + layout_.object.ob_type, type);
    p_.target.Put<uint8_t>(block + layout_.mimalloc.object_gc_bits, layout_.mimalloc.tracked_bit);
  }

 private:
  fake311::Process& p_;
  Layout layout_;
  uint64_t tstate_ = 0;
  uint64_t pool_ = 0;
};

}  // namespace pyunwind::testing

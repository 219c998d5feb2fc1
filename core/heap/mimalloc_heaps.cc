#include "core/heap/mimalloc_heaps.h"

#include <cstring>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>

#include "core/base/work_budget.h"

namespace pyunwind {
namespace {

template <typename T>
T Field(const uint8_t* bytes, int32_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof value);
  return value;
}

class MimallocWalk {
 public:
  MimallocWalk(ObjectReader& objects, HeapObjectSink& sink, const MimallocLimits& limits,
               MimallocWalkResult& result)
      : memory_(objects.memory()), l_(objects.layout()), m_(objects.layout().mimalloc),
        sink_(sink), limits_(limits), result_(result),
        segment_mask_((uint64_t{1} << m_.segment_shift) - 1) {}

  void Run(uint64_t interp, const std::vector<uint64_t>& thread_states) {
    std::optional<uint64_t> pool;
    for (uint64_t tstate : thread_states) {
      if (Stop()) return;
      const uint64_t heaps = tstate + uint64_t(m_.tstate_heaps);
      const uint64_t tld = heaps + uint64_t(m_.heap_count) * uint64_t(m_.heap_size);
      auto initialized = memory_.ReadValue<int32_t>(tld + uint64_t(m_.tld_size));
      if (!initialized) {
        sink_.Damaged(fmt::format("cannot read the mimalloc state of the thread state at {:#x}",
                                  tstate));
        continue;
      }
      if (*initialized == 0) continue;  // not bound to mimalloc yet: no objects of its own
      for (int32_t id : {m_.heap_gc, m_.heap_gc_pre}) {
        const uint64_t heap = heaps + uint64_t(id) * uint64_t(m_.heap_size);
        // The layout's check: a heap points at its thread's tld and carries its id as tag.
        auto heap_tld = memory_.ReadPointer(heap + uint64_t(m_.heap_tld));
        auto tag = memory_.ReadValue<uint8_t>(heap + uint64_t(m_.heap_tag));
        if (!heap_tld || !tag || *heap_tld != tld || *tag != id) {
          sink_.Damaged(fmt::format(
              "the mimalloc heap {} of the thread state at {:#x} does not match the layout: its "
              "objects are not counted",
              id, tstate));
          continue;
        }
        VisitHeap(heap, ObjectOffset(id));
        if (Stop()) return;
      }
      if (!pool) {
        auto at = memory_.ReadPointer(tld + uint64_t(m_.tld_abandoned_pool));
        if (at && *at > interp && *at < interp + uint64_t(l_.interp.size)) {
          pool = *at;
        } else {
          sink_.Damaged(fmt::format(
              "the thread state at {:#x} does not point at its interpreter's pool of abandoned "
              "mimalloc segments",
              tstate));
        }
      }
    }
    if (pool && !Stop()) {
      auto abandoned = memory_.ReadPointer(*pool + uint64_t(m_.pool_abandoned));
      auto visited = memory_.ReadPointer(*pool + uint64_t(m_.pool_visited));
      if (!abandoned || !visited) {
        sink_.Damaged(fmt::format("cannot read the pool of abandoned segments at {:#x}", *pool));
        return;
      }
      VisitSegments(*abandoned & ~segment_mask_);  // tagged in its low bits against ABA
      VisitSegments(*visited);
    }
  }

 private:
  bool Stop() { return result_.cut || sink_.Stopped(); }

  uint64_t ObjectOffset(int32_t heap_id) const {
    return heap_id == m_.heap_gc_pre ? uint64_t(l_.gc.preheader_size) : 0;
  }

  // Spends the work budget; false once it ran out (the sink then says Stopped()).
  bool Spend() { return memory_.budget().Spend(Work::kHeapObjects, 1); }

  // A page met for the first time, within the cap; false (with a warning) past the cap.
  bool CountPage() {
    if (result_.pages >= limits_.max_pages) {
      result_.cut = true;
      result_.warnings.push_back(fmt::format(
          "more than {} mimalloc pages: the objects of the rest are not counted...truncated",
          limits_.max_pages));
      return false;
    }
    ++result_.pages;
    return true;
  }

  // A heap's pages: the queues of each size class, linked through `next`.
  void VisitHeap(uint64_t heap, uint64_t object_offset) {
    for (int32_t q = 0; q < m_.page_queues && !Stop(); ++q) {
      const uint64_t queue =
          heap + uint64_t(m_.heap_pages) + uint64_t(q) * uint64_t(m_.page_queue_size);
      auto page = memory_.ReadPointer(queue);
      if (!page) {
        sink_.Damaged(fmt::format("cannot read the page queue at {:#x}", queue));
        continue;
      }
      while (*page != 0 && !Stop()) {
        if (!pages_seen_.insert(*page).second) {  // a loop, or a page of two queues
          sink_.Damaged(fmt::format("the page queue at {:#x} meets the page at {:#x} a second "
                                    "time: it is cut there",
                                    queue, *page));
          break;
        }
        if (!CountPage() || !Spend()) return;
        const uint64_t at = *page;
        page = memory_.ReadPointer(at + uint64_t(m_.page_next));
        VisitPage(at, object_offset, heap);
        if (!page) {
          sink_.Damaged(fmt::format("cannot read the page at {:#x}: its queue is cut there", at));
          break;
        }
      }
    }
  }

  // The abandoned segments linked through abandoned_next, and their pages of the GC heaps.
  void VisitSegments(uint64_t segment) {
    for (uint64_t walked = 0; segment != 0 && !Stop(); ++walked) {
      if (walked >= limits_.max_segments) {
        result_.cut = true;
        result_.warnings.push_back(fmt::format(
            "more than {} abandoned mimalloc segments: the rest are not counted...truncated",
            limits_.max_segments));
        return;
      }
      if (!segments_seen_.insert(segment).second || (segment & segment_mask_) != 0) {
        sink_.Damaged(fmt::format("the list of abandoned segments is broken at {:#x}: it is cut "
                                  "there", segment));
        return;
      }
      VisitSegmentPages(segment);
      auto next = memory_.ReadPointer(segment + uint64_t(m_.segment_abandoned_next));
      if (!next) {
        sink_.Damaged(fmt::format("cannot read the abandoned segment at {:#x}", segment));
        return;
      }
      segment = *next;
    }
  }

  // mi_segment_visit_pages: the slices after the segment's own, a span at a time.
  void VisitSegmentPages(uint64_t segment) {
    auto entries = memory_.ReadValue<uint64_t>(segment + uint64_t(m_.segment_slice_entries));
    if (!entries || *entries > uint64_t(m_.max_slice_entries)) {
      sink_.Damaged(fmt::format("the abandoned segment at {:#x} has no readable slice count",
                                segment));
      return;
    }
    bool first = true;
    for (uint64_t index = 0; index < *entries && !Stop();) {
      const uint64_t slice = segment + uint64_t(m_.segment_slices) + index * uint64_t(m_.page_size);
      uint8_t header[64];
      if (!memory_.Read(slice, header, sizeof header)) {
        sink_.Damaged(fmt::format("cannot read the slice at {:#x}", slice));
        return;
      }
      const uint32_t count = Field<uint32_t>(header, m_.page_slice_count);
      if (count == 0) {
        sink_.Damaged(fmt::format("the slice at {:#x} spans no slices: its segment is cut there",
                                  slice));
        return;
      }
      const int32_t tag = (header[m_.page_tag_byte] >> m_.page_tag_shift) & 0xf;
      const bool used = Field<uint32_t>(header, m_.page_block_size) != 0;
      if (!first && used && (tag == m_.heap_gc || tag == m_.heap_gc_pre)) {
        if (!CountPage() || !Spend()) return;
        VisitPage(slice, ObjectOffset(tag), 0);
      }
      first = false;  // the segment's own information
      index += count;
    }
  }

  // mi_heap_area_visit_blocks: the blocks up to the page's capacity that no free list holds.
  // `heap`: the heap whose queue holds the page (0: an abandoned page, which has none).
  void VisitPage(uint64_t page, uint64_t object_offset, uint64_t heap) {
    uint8_t header[64];  // through `next`
    if (!memory_.Read(page, header, sizeof header)) {
      sink_.Damaged(fmt::format("cannot read the mimalloc page at {:#x}", page));
      return;
    }
    const uint32_t used = Field<uint32_t>(header, m_.page_used);
    if (used == 0) return;
    const uint64_t capacity = Field<uint16_t>(header, m_.page_capacity);
    const uint64_t slice_count = Field<uint32_t>(header, m_.page_slice_count);
    const uint64_t segment = page & ~segment_mask_;
    const uint64_t slices = segment + uint64_t(m_.segment_slices);
    const uint64_t index = page >= slices ? (page - slices) / uint64_t(m_.page_size) : UINT64_MAX;
    if (heap != 0 && Field<uint64_t>(header, m_.page_heap) != heap) {
      return PageDamaged(page, "belongs to another heap than the one listing it");
    }
    if (index >= uint64_t(m_.max_slice_entries) || (page - slices) % uint64_t(m_.page_size) != 0 ||
        slice_count == 0 || index + slice_count > uint64_t(m_.max_slice_entries)) {
      return PageDamaged(page, "is not a slice of its segment");
    }
    // _mi_segment_page_start_from_slice: small blocks start a few blocks in.
    uint64_t area = slice_count << m_.slice_shift;
    const uint32_t xblock = Field<uint32_t>(header, m_.page_block_size);
    const uint64_t block_size = xblock >= m_.huge_block_size ? area : xblock;
    uint64_t start_offset = 0;
    if (block_size >= 8 && block_size <= 64) start_offset = 3 * block_size;
    else if (block_size > 64 && block_size <= 512) start_offset = block_size;
    if (block_size < 8 || start_offset >= area || capacity == 0 ||
        capacity > (area - start_offset) / block_size || used > capacity) {
      return PageDamaged(page, fmt::format("has impossible sizes (capacity {}, used {}, blocks of "
                                           "{} bytes in {} bytes)",
                                           capacity, used, block_size, area));
    }
    area -= start_offset;
    const uint64_t start = segment + (index << m_.slice_shift) + start_offset;
    // The free blocks: the page's three lists, each inside the page and met once.
    free_.assign((capacity + 63) / 64, 0);
    for (int32_t list : {m_.page_free, m_.page_local_free, m_.page_thread_free}) {
      uint64_t block = Field<uint64_t>(header, list) & ~uint64_t{3};  // thread_free's flags
      for (uint64_t steps = 0; block != 0; ++steps) {
        if (!Spend()) return;
        const uint64_t i = block >= start ? (block - start) / block_size : capacity;
        if (steps >= capacity || i >= capacity || (block - start) % block_size != 0 ||
            (free_[i / 64] >> (i % 64)) & 1) {
          return PageDamaged(page, fmt::format("has a free list that leaves its blocks or loops "
                                               "(at {:#x})", block));
        }
        free_[i / 64] |= uint64_t{1} << (i % 64);
        auto next = memory_.ReadPointer(block);
        if (!next) {
          return PageDamaged(page, fmt::format("has an unreadable free block at {:#x}", block));
        }
        block = *next;
      }
    }
    for (uint64_t i = 0; i < capacity; ++i) {
      if ((free_[i / 64] >> (i % 64)) & 1) continue;
      if (!Spend()) return;
      ++result_.blocks;
      const uint64_t object = start + i * block_size + object_offset;
      auto bits = memory_.ReadValue<uint8_t>(object + uint64_t(m_.object_gc_bits));
      if (!bits) {
        sink_.Damaged(fmt::format("cannot read the object at {:#x}", object));
        continue;
      }
      if ((*bits & m_.tracked_bit) == 0) continue;
      if (!sink_.Object(object)) return;
    }
  }

  void PageDamaged(uint64_t page, const std::string& why) {
    sink_.Damaged(fmt::format("the mimalloc page at {:#x} {}: its objects are not counted", page,
                              why));
  }

  RemoteMemory& memory_;
  const Layout& l_;
  const Layout::Mimalloc& m_;
  HeapObjectSink& sink_;
  const MimallocLimits& limits_;
  MimallocWalkResult& result_;
  const uint64_t segment_mask_;
  std::vector<uint64_t> free_;  // one bit a block of the page being visited
  // Each page and segment is visited once: a loop, or one listed twice, is damage.
  std::unordered_set<uint64_t> pages_seen_;
  std::unordered_set<uint64_t> segments_seen_;
};

}  // namespace

MimallocWalkResult VisitMimallocObjects(ObjectReader& objects, uint64_t interp,
                                        const std::vector<uint64_t>& thread_states,
                                        HeapObjectSink& sink, const MimallocLimits& limits) {
  MimallocWalkResult result;
  MimallocWalk(objects, sink, limits, result).Run(interp, thread_states);
  return result;
}

}  // namespace pyunwind

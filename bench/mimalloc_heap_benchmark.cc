// py-heap's free-threaded census (issue 43: a census of 1,000,000 objects at most 1 s and
// 200 MB more in the debugger) over a synthetic mimalloc heap: a fake CPython 3.11 process
// (tests/fake_process311.h) with the fake mimalloc heaps of tests/fake_mimalloc.h (as
// tests/limits_test.cc's), whose one thread state's GC heap queues pages of 64-byte blocks in 32 MiB
// segments, every block a tracked object of one of four classes and one in 50 freed (on the
// page's free list). Runs TakeHeapCensus (the walk of core/heap/mimalloc_heaps.h and the count)
// and prints its time and the process's peak RSS before and after.
//   bazel run -c opt //bench:mimalloc_heap_benchmark [-- OBJECTS]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/heap/heap_census.h"
#include "core/objects/values.h"
#include "core/target/memory.h"
#include "tests/fake_mimalloc.h"
#include "tests/fake_process311.h"

namespace {

using pyunwind::Layout;
using pyunwind::testing::FakeMimallocHeaps;
using pyunwind::testing::fake311::Process;

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

constexpr uint64_t kSegments = 0x7e0000000000;  // 32 MiB-aligned
constexpr uint16_t kBlocksPerPage = 1000;  // of the 1021 a 64 KiB slice holds past its start
constexpr uint64_t kPagesPerSegment = 500;  // slices 1-500 of 512

class MimallocHeap {
 public:
  explicit MimallocHeap(uint64_t objects) : p(16 << 20), heaps(p) {
    p.AddSymbols();
    const Layout& layout = heaps.layout();
    const Layout::Mimalloc& m = layout.mimalloc;
    for (const char* name : {"Record", "Node", "Edge", "Leaf"}) {
      const uint64_t type = p.objects.Type(name);
      p.target.Put<int64_t>(type + layout.type.tp_basicsize, 48);
      p.target.Put<int64_t>(type + layout.type.tp_itemsize, 0);
      p.target.PutU64(type + layout.type.tp_flags, (1u << 14) | (1u << 9));  // GC, heap type
      types.push_back(type);
    }
    // Pages of kBlocksPerPage blocks, one in 50 on the free list, until `objects` are used.
    const uint64_t used_per_page = kBlocksPerPage - kBlocksPerPage / 50;
    const uint64_t pages = (objects + used_per_page - 1) / used_per_page;
    uint64_t previous = 0, left = objects;
    for (uint64_t i = 0; i < pages; ++i) {
      const uint64_t segment = kSegments + (i / kPagesPerSegment << m.segment_shift);
      if (i % kPagesPerSegment == 0) p.target.Map(segment, uint64_t{1} << m.segment_shift);
      const uint64_t used = std::min(left, used_per_page);
      left -= used;
      previous = AddPage(segment, 1 + i % kPagesPerSegment, used, previous);
    }
  }

  // Slice `slice` of `segment` as a page of `used` tracked objects and its freed blocks,
  // queued after `after` (0: first in queue 0 of the GC heap).
  uint64_t AddPage(uint64_t segment, uint64_t slice, uint64_t used, uint64_t after) {
    const uint16_t capacity = uint16_t(used + used / (50 - 1));
    const uint64_t page = heaps.AddPage(segment, slice, capacity, uint32_t(used), after);
    uint64_t free_list = 0;
    for (uint16_t i = 0; i < capacity; ++i) {
      const uint64_t block = heaps.Block(segment, slice, i);
      if (i % 50 == 49) {  // freed: on the free list
        p.target.PutU64(block, free_list);
        free_list = block;
        continue;
      }
      heaps.Track(block, types[i % types.size()]);
    }
    p.target.PutU64(page + heaps.layout().mimalloc.page_free, free_list);
    return page;
  }

  Process p;
  FakeMimallocHeaps heaps;
  std::vector<uint64_t> types;
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t objects = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  MimallocHeap heap(objects);
  const double rss_before = PeakRssMiB();
  const auto start = std::chrono::steady_clock::now();
  pyunwind::RemoteMemory memory(heap.p.target, pyunwind::kMaxBytesReadForHeap);
  pyunwind::ObjectReader reader(memory, heap.heaps.layout());
  pyunwind::ValueFormatter types(reader);
  auto census = pyunwind::TakeHeapCensus(reader, types, {{heap.p.interp, {heap.heaps.tstate()}}});
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double rss_after = PeakRssMiB();
  if (!census.ok()) {
    std::fprintf(stderr, "census failed: %s\n", census.error().message.c_str());
    return 1;
  }
  for (const pyunwind::HeapGroup& group : census->groups) {
    std::printf("%-8s %10llu %14llu\n", group.name.c_str(),
                static_cast<unsigned long long>(group.count),
                static_cast<unsigned long long>(group.bytes));
  }
  for (const std::string& warning : census->warnings) std::printf("warning: %s\n", warning.c_str());
  std::printf("free-threaded census of %llu objects (%llu counted, %llu damaged): %.0f ms; peak "
              "RSS %.0f MiB before the census (the fake heap), %.0f MiB after: %.0f MiB more\n",
              static_cast<unsigned long long>(objects),
              static_cast<unsigned long long>(census->objects),
              static_cast<unsigned long long>(census->damaged), ms, rss_before, rss_after,
              rss_after - rss_before);
  return census->objects == objects && census->damaged == 0 ? 0 : 1;
}

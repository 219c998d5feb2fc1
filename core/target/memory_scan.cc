#include "core/target/memory_scan.h"

#include <algorithm>
#include <cstring>

namespace pyunwind {
namespace {
constexpr size_t kScanChunk = 1 << 20;
}  // namespace

ScanOutcome ScanWritableWords(RemoteMemory& memory, const std::vector<MemoryRegion>& regions,
                              uint64_t max_bytes,
                              const std::function<ScanStep(uint64_t, uint64_t)>& visit) {
  std::vector<MemoryRegion> order;
  for (const MemoryRegion& region : regions) {
    if (region.readable && region.writable && region.end > region.start) order.push_back(region);
  }
  std::stable_sort(order.begin(), order.end(), [](const MemoryRegion& a, const MemoryRegion& b) {
    return a.end - a.start < b.end - b.start;
  });
  ScanOutcome outcome;
  std::vector<uint8_t> chunk(kScanChunk);
  for (const MemoryRegion& region : order) {
    for (uint64_t start = region.start & ~uint64_t{7}; start < region.end; start += kScanChunk) {
      if (outcome.bytes_scanned >= max_bytes) {
        outcome.budget_reached = true;
        return outcome;
      }
      if (memory.target().Interrupted()) {  // a scan of gigabytes takes seconds: asked per MiB
        outcome.interrupted = true;
        return outcome;
      }
      const size_t size = std::min<uint64_t>(kScanChunk, region.end - start);
      outcome.bytes_scanned += size;
      if (!memory.ReadUncached(start, chunk.data(), size)) continue;
      for (size_t offset = 0; offset + 8 <= size; offset += 8) {
        uint64_t word;
        std::memcpy(&word, chunk.data() + offset, 8);
        if (visit(start + offset, word) == ScanStep::kStop) {
          outcome.stopped = true;
          return outcome;
        }
      }
    }
  }
  return outcome;
}

}  // namespace pyunwind

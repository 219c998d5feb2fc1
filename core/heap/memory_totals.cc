#include "core/heap/memory_totals.h"

#include <vector>

namespace pyunwind {
namespace {

bool Anonymous(const MemoryRegion& region) {
  return region.name.empty() || region.name == "[heap]";
}

}  // namespace

MemoryTotals WritableAnonymousMemory(Target& target) {
  MemoryTotals totals;
  const std::vector<MemoryRegion> regions = target.MemoryRegions();
  if (regions.empty()) {
    totals.why_unknown = target.WhyNoMemoryRegions();
    if (totals.why_unknown.empty()) {
      totals.why_unknown = "the debugger lists no memory regions of this target";
    }
    return totals;
  }
  uint64_t bytes = 0;
  for (const MemoryRegion& region : regions) {
    if (!region.readable || !region.writable || !Anonymous(region) || region.end <= region.start) {
      continue;
    }
    const uint64_t size = region.end - region.start;
    bytes = size > UINT64_MAX - bytes ? UINT64_MAX : bytes + size;
    ++totals.regions;
  }
  totals.writable_anonymous_bytes = bytes;
  return totals;
}

std::optional<double> CensusShare(uint64_t census_bytes, const MemoryTotals& memory) {
  if (!memory.writable_anonymous_bytes || *memory.writable_anonymous_bytes == 0) {
    return std::nullopt;
  }
  return 100.0 * double(census_bytes) / double(*memory.writable_anonymous_bytes);
}

}  // namespace pyunwind

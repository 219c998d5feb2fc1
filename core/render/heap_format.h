// py-heap's text and JSON (core/heap/heap_census.h): the totals, then one row per type group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/heap/heap_census.h"
#include "core/heap/memory_totals.h"
#include "core/render/output_writer.h"

namespace pyunwind {

// What py-heap shows of a census: the groups --type and --top leave, in census order.
struct HeapView {
  const HeapCensus* census = nullptr;
  std::vector<HeapGroup> shown;
  uint64_t not_shown = 0;  // groups left out by --top (--type leaves the rest unmentioned)
  // The process's writable anonymous mappings; null: no line about them.
  const MemoryTotals* memory = nullptr;
};

// What the census accounts for: its tracked and untracked objects' bytes.
inline uint64_t CensusBytes(const HeapCensus& census) {
  const uint64_t b = census.through_containers_bytes;
  return census.bytes > UINT64_MAX - b ? UINT64_MAX : census.bytes + b;
}

// "heap: N objects, B bytes in G types ...", "census: X MiB of Y MiB in writable anonymous
// mappings (Z %)", then `type  count  bytes` rows (" *" after the groups reached through
// containers, and a legend line), "... N more types", the largest containers (--containers)
// and the warnings ("warning: ...").
std::string FormatHeapText(const HeapView& view, OutputBudget* budget = nullptr);
// {"interpreters", "objects", "bytes", "types", "damaged", "complete", "limited",
// "through_containers_objects", "through_containers_bytes", "through_containers_limited",
// "memory": {"writable_anonymous_bytes", "regions", "census_bytes", "census_percent",
// "unknown_reason"}, "groups": [{"type", "type_address", "count", "bytes",
// "through_containers"}], "groups_not_shown", "containers": [{"type", "type_address",
// "address", "length", "bytes", "referrers": [{"kind", "name"}] or null}], "warnings"}
// (docs/json-output.md).
std::string FormatHeapJson(const HeapView& view, OutputBudget* budget = nullptr);

}  // namespace pyunwind

// py-heap's text and JSON (core/heap/heap_census.h): the totals, then one row per type group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/heap/heap_census.h"
#include "core/render/output_writer.h"

namespace pyunwind {

// What py-heap shows of a census: the groups --type and --top leave, in census order.
struct HeapView {
  const HeapCensus* census = nullptr;
  std::vector<HeapGroup> shown;
  uint64_t not_shown = 0;  // groups left out by --top (--type leaves the rest unmentioned)
};

// "heap: N objects, B bytes in G types ..." then `type  count  bytes` rows, then
// "... N more types", the largest containers (--containers) and the warnings ("warning: ...").
std::string FormatHeapText(const HeapView& view, OutputBudget* budget = nullptr);
// {"interpreters", "objects", "bytes", "types", "damaged", "complete", "limited", "groups":
// [{"type", "type_address", "count", "bytes"}], "groups_not_shown", "containers": [{"type",
// "type_address", "address", "length", "bytes", "referrers": [{"kind", "name"}] or null}],
// "warnings"}
// (docs/json-output.md).
std::string FormatHeapJson(const HeapView& view, OutputBudget* budget = nullptr);

}  // namespace pyunwind

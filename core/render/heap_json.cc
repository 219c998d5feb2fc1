#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "core/heap/container_referrers.h"
#include "core/render/heap_format.h"
#include "core/render/json_string.h"

namespace pyunwind {
namespace {

// [{"kind", "name"}], or null where they were not looked for.
void AppendReferrers(std::string& out, const std::optional<std::vector<HeapReferrer>>& referrers) {
  if (!referrers) {
    out += "null";
    return;
  }
  out += "[";
  for (size_t i = 0; i < referrers->size(); ++i) {
    out += i ? ",{\"kind\":\"" : "{\"kind\":\"";
    out += ReferrerKindName((*referrers)[i].kind);
    out += "\",\"name\":";
    AppendJsonString(out, (*referrers)[i].name);
    out += "}";
  }
  out += "]";
}

}  // namespace

std::string FormatHeapJson(const HeapView& view, OutputBudget* budget) {
  const HeapCensus& census = *view.census;
  std::string out = fmt::format(
      "{{\"interpreters\":{},\"objects\":{},\"bytes\":{},\"types\":{},\"damaged\":{},"
      "\"complete\":{},\"limited\":{},\"through_containers_objects\":{},"
      "\"through_containers_bytes\":{},\"through_containers_limited\":{},",
      census.interpreters, census.objects, census.bytes, census.groups.size(), census.damaged,
      census.complete ? "true" : "false", census.limited ? "true" : "false",
      census.through_containers_objects, census.through_containers_bytes,
      census.through_containers_limited ? "true" : "false");
  if (view.memory != nullptr) {
    const MemoryTotals& memory = *view.memory;
    const uint64_t counted = CensusBytes(census);
    const std::optional<double> share = CensusShare(counted, memory);
    out += fmt::format(
        "\"memory\":{{\"writable_anonymous_bytes\":{},\"regions\":{},\"census_bytes\":{},"
        "\"census_percent\":{},\"unknown_reason\":",
        memory.writable_anonymous_bytes ? std::to_string(*memory.writable_anonymous_bytes)
                                        : "null",
        memory.regions, counted, share ? fmt::format("{:.3f}", *share) : "null");
    if (memory.writable_anonymous_bytes) {
      out += "null";
    } else {
      AppendJsonString(out, memory.why_unknown);
    }
    out += "},";
  }
  out += "\"groups\":[";
  uint64_t unshown = view.not_shown;
  for (size_t i = 0; i < view.shown.size(); ++i) {
    const HeapGroup& group = view.shown[i];
    std::string item = i ? "," : "";
    item += "{\"type\":";
    AppendJsonString(item, group.name);
    item += group.type ? fmt::format(",\"type_address\":\"{:#x}\"", group.type)
                       : std::string(",\"type_address\":null");
    item += fmt::format(",\"count\":{},\"bytes\":{},\"through_containers\":{}}}", group.count,
                        group.bytes, group.through_containers ? "true" : "false");
    if (budget != nullptr && !budget->Fits(out.size() + item.size() + 4096, 0)) {
      unshown += view.shown.size() - i;
      break;
    }
    out += item;
  }
  out += fmt::format("],\"groups_not_shown\":{},\"containers\":[", unshown);
  for (size_t i = 0; i < census.containers.size(); ++i) {
    const HeapContainer& container = census.containers[i];
    std::string item = i ? "," : "";
    item += "{\"type\":";
    AppendJsonString(item, container.type_name);
    item += fmt::format(",\"type_address\":\"{:#x}\",\"address\":\"{:#x}\",\"length\":{},"
                        "\"bytes\":{},\"referrers\":",
                        container.type, container.address, container.length, container.bytes);
    AppendReferrers(item, container.referrers);
    item += "}";
    if (budget != nullptr && !budget->Fits(out.size() + item.size() + 4096, 0)) break;
    out += item;
  }
  out += "],\"warnings\":";
  std::vector<std::string> warnings = census.warnings;
  if (budget != nullptr && budget->Exceeded()) warnings.push_back(budget->Reason());
  AppendJsonStrings(out, warnings);
  out += "}\n";
  return out;
}

}  // namespace pyunwind

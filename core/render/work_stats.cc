#include "core/render/work_stats.h"

#include <fmt/format.h>

namespace pyunwind {
namespace {

constexpr Work kKinds[] = {Work::kBytesRead, Work::kFrames, Work::kCodeObjects,
                           Work::kLineTableEntries, Work::kContainerEntries,
                           Work::kCoroutineLinks, Work::kHeapObjects};
static_assert(std::size(kKinds) == static_cast<size_t>(Work::kCount));

}  // namespace

std::string WorkStatsText(const WorkBudget& budget) {
  std::string out = "work (spent/budget):";
  for (Work kind : kKinds) {
    out += fmt::format("{} {}/{} {}", kind == kKinds[0] ? "" : ",", budget.Spent(kind),
                       budget.Limit(kind), WorkName(kind));
  }
  return out;
}

nlohmann::ordered_json WorkStatsJson(const WorkBudget& budget) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (Work kind : kKinds) {
    out[WorkKey(kind)] = {{"spent", budget.Spent(kind)}, {"budget", budget.Limit(kind)}};
  }
  return out;
}

}  // namespace pyunwind

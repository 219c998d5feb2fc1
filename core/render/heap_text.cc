#include <fmt/format.h>

#include <algorithm>

#include "core/base/printable.h"
#include "core/render/heap_format.h"

namespace pyunwind {
namespace {

// Names longer than this are printed whole, past the column.
constexpr size_t kMaxTypeColumn = 48;
// After the name of a group of untracked objects reached through containers; the legend says so.
constexpr const char* kThroughContainersMark = " *";

// The line under a container: its module globals, class attributes and frames' locals.
std::string ReferencedBy(const std::vector<HeapReferrer>& referrers) {
  if (referrers.empty()) return "  referenced by: no module global, class attribute or local\n";
  std::string line = "  referenced by: ";
  for (size_t i = 0; i < referrers.size(); ++i) {
    if (i != 0) line += ", ";
    AppendPrintable(line, referrers[i].name);
  }
  return line + "\n";
}

}  // namespace

std::string FormatHeapText(const HeapView& view, OutputBudget* budget) {
  const HeapCensus& census = *view.census;
  std::string out = fmt::format(
      "heap: {} objects, {} bytes in {} types ({} interpreter{}; objects the collector tracks, "
      "bytes as sys.getsizeof gives them){}\n",
      census.objects, census.bytes, census.groups.size(), census.interpreters,
      census.interpreters == 1 ? "" : "s", census.complete ? "" : ", incomplete");
  if (view.memory != nullptr) {
    const double mib = 1024.0 * 1024.0;
    const uint64_t counted = CensusBytes(census);
    if (auto share = CensusShare(counted, *view.memory)) {
      out += fmt::format("census: {:.1f} MiB of {:.1f} MiB in writable anonymous mappings ({:.1f} %)\n",
                         double(counted) / mib,
                         double(*view.memory->writable_anonymous_bytes) / mib, *share);
    } else {
      out += fmt::format("census: {:.1f} MiB; the writable anonymous mappings are not known: {}\n",
                         double(counted) / mib,
                         view.memory->writable_anonymous_bytes
                             ? std::string("the debugger lists none")
                             : PrintableText(view.memory->why_unknown));
    }
  }
  std::vector<std::string> names;
  size_t width = 4;
  bool marked = false;
  for (const HeapGroup& group : view.shown) {
    names.push_back(PrintableText(group.name) +
                    (group.through_containers ? kThroughContainersMark : ""));
    marked |= group.through_containers;
    width = std::max(width, std::min(names.back().size(), kMaxTypeColumn));
  }
  out += fmt::format("{:<{}}  {:>10}  {:>14}\n", "type", width, "count", "bytes");
  uint64_t unshown = view.not_shown;
  for (size_t i = 0; i < view.shown.size(); ++i) {
    std::string row = fmt::format("{:<{}}  {:>10}  {:>14}\n", names[i], width,
                                  view.shown[i].count, view.shown[i].bytes);
    if (budget != nullptr && !budget->Fits(out.size() + row.size(), i + 3)) {
      unshown += view.shown.size() - i;
      break;
    }
    out += row;
  }
  if (unshown != 0) out += fmt::format("... {} more types not shown\n", unshown);
  if (marked) {
    out += fmt::format(
        "{}: objects the collector does not track, reached through the items of lists, tuples, "
        "dicts and sets and instances' attributes, each counted once: {} objects, {} bytes in "
        "all{}\n",
        kThroughContainersMark + 1, census.through_containers_objects,
        census.through_containers_bytes, census.through_containers_limited ? ", limited" : "");
  }
  if (!census.containers.empty()) {
    std::vector<std::string> types;
    size_t column = 4;
    for (const HeapContainer& container : census.containers) {
      types.push_back(PrintableText(container.type_name));
      column = std::max(column, std::min(types.back().size(), kMaxTypeColumn));
    }
    out += fmt::format("\nlargest containers:\n{:<{}}  {:>10}  {:>14}  address\n", "type", column,
                       "length", "bytes");
    for (size_t i = 0; i < census.containers.size(); ++i) {
      const HeapContainer& container = census.containers[i];
      std::string row = fmt::format("{:<{}}  {:>10}  {:>14}  {:#x}\n", types[i], column,
                                    container.length, container.bytes, container.address);
      if (container.referrers) row += ReferencedBy(*container.referrers);
      if (budget != nullptr && !budget->Fits(out.size() + row.size(), 0)) break;
      out += row;
    }
  }
  for (const std::string& warning : census.warnings) {
    out += "warning: " + PrintableText(warning) + "\n";
  }
  if (budget != nullptr && budget->Exceeded()) out += "warning: " + budget->Reason() + "\n";
  return out;
}

}  // namespace pyunwind

#include <fmt/format.h>

#include <algorithm>

#include "core/base/printable.h"
#include "core/render/heap_format.h"

namespace pyunwind {
namespace {

// Names longer than this are printed whole, past the column.
constexpr size_t kMaxTypeColumn = 48;

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
  std::vector<std::string> names;
  size_t width = 4;
  for (const HeapGroup& group : view.shown) {
    names.push_back(PrintableText(group.name));
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

#include "core/commands/heap_referrers.h"

#include <fmt/format.h>

#include "core/target/memory.h"
#include "core/walk/locals.h"

namespace pyunwind {
namespace {

ReferrerFrame LocalsOf(ObjectReader& objects, ValueFormatter& values, const Frame& frame) {
  ReferrerFrame out;
  out.function = frame.qualname().empty() ? frame.name() : frame.qualname();
  out.filename = frame.filename();
  out.line = frame.line;
  auto slots = ReadLocalSlots(objects, values, frame.frame_address, frame.code_address);
  if (!slots.ok()) {
    out.error = slots.error().message;
    return out;
  }
  for (LocalSlot& slot : slots->slots) {
    if (slot.bound && !slot.tagged_int && !slot.error && slot.object != 0) {
      out.locals.emplace_back(std::move(slot.name), slot.object);
    }
  }
  return out;
}

}  // namespace

void NameContainerReferrers(ObjectReader& objects, ValueFormatter& values,
                            const Snapshot& snapshot, HeapCensus& census,
                            const ReferrerLimits& limits) {
  // A budget the census ran out leaves them null: not looked for.
  RemoteMemory& memory = objects.memory();
  if (census.containers.empty() || memory.budget().Exhausted() || memory.BudgetExhausted()) return;
  std::vector<uint64_t> containers, interpreters;
  for (const HeapContainer& container : census.containers) containers.push_back(container.address);
  std::vector<ReferrerFrame> frames;
  for (const Interpreter& interp : snapshot.interpreters) {
    interpreters.push_back(interp.address);
    for (const Thread& thread : interp.threads) {
      for (const Frame& frame : thread.frames) {
        if (frame.kind != FrameKind::kPython || frame.frame_address == 0) continue;
        frames.push_back(LocalsOf(objects, values, frame));
      }
    }
  }
  if (census.classes.size() >= kMaxReferrerClasses) {
    census.warnings.push_back(fmt::format(
        "the census met {} classes or more: the dicts of the rest are not looked in for who "
        "refers to the largest containers...truncated",
        kMaxReferrerClasses));
  }
  ReferrerScan scan =
      FindContainerReferrers(objects, containers, interpreters, census.classes, frames, limits);
  for (size_t i = 0; i < census.containers.size(); ++i) {
    census.containers[i].referrers = std::move(scan.referrers[i]);
  }
  for (std::string& warning : scan.warnings) census.warnings.push_back(std::move(warning));
}

}  // namespace pyunwind

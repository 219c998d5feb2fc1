#include "core/commands/heap_referrers.h"

#include <fmt/format.h>

#include <unordered_set>

#include "core/asyncio/coroutine_frames.h"
#include "core/target/memory.h"
#include "core/walk/frames.h"
#include "core/walk/locals.h"

namespace pyunwind {
namespace {

// The locals of `frame_address`, named as a thread's frame is (`line`: where it stands).
ReferrerFrame LocalsAt(ObjectReader& objects, ValueFormatter& values, const CodeNames& names,
                       uint64_t frame_address, uint64_t code_address, std::optional<int> line) {
  ReferrerFrame out;
  out.function = names.qualname.empty() ? names.name : names.qualname;
  out.filename = names.filename;
  out.line = line;
  auto slots = ReadLocalSlots(objects, values, frame_address, code_address);
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

ReferrerFrame LocalsOf(ObjectReader& objects, ValueFormatter& values, const Frame& frame) {
  const CodeNames names{frame.filename(), frame.name(), frame.qualname()};
  return LocalsAt(objects, values, names, frame.frame_address, frame.code_address, frame.line);
}

// The frames of the generators, coroutines and async generators the census met that are not
// running (a running one's frame is a thread's, looked in already) nor finished (no frame): a
// suspended one's, at the line it stands at, and one not yet started, at its first line.
void GeneratorFrames(ObjectReader& objects, ValueFormatter& values, const HeapCensus& census,
                     const std::unordered_set<uint64_t>& thread_frames,
                     std::vector<ReferrerFrame>& frames) {
  CodeCache codes(objects);
  RemoteMemory& memory = objects.memory();
  for (uint64_t generator : census.generators) {
    if (memory.budget().Exhausted() || memory.BudgetExhausted()) return;
    const std::optional<CoroutineState> state = ReadCoroutineFrame(objects, codes, generator);
    if (!state) {
      frames.push_back({});
      frames.back().error = fmt::format("cannot read the generator at {:#x}", generator);
      continue;
    }
    if (state->frame == 0 || thread_frames.count(state->frame)) continue;
    auto position = ReadFramePosition(objects, codes, state->frame);
    if (!position.ok()) {
      frames.push_back({});
      frames.back().error = position.error().message;
      continue;
    }
    const std::optional<int> line =
        state->created ? std::optional<int>(position->code->first_line) : position->line;
    frames.push_back(LocalsAt(objects, values, *position->code->names, state->frame,
                              position->code_address, line));
  }
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
  std::unordered_set<uint64_t> thread_frames;
  for (const Interpreter& interp : snapshot.interpreters) {
    interpreters.push_back(interp.address);
    for (const Thread& thread : interp.threads) {
      for (const Frame& frame : thread.frames) {
        if (frame.kind != FrameKind::kPython || frame.frame_address == 0) continue;
        frames.push_back(LocalsOf(objects, values, frame));
        thread_frames.insert(frame.frame_address);
      }
    }
  }
  GeneratorFrames(objects, values, census, thread_frames, frames);
  if (census.generators_cut) {
    census.warnings.push_back(fmt::format(
        "the census met more than {} generators and coroutines: the frames of the rest are not "
        "looked in for who refers to the largest containers...truncated",
        kMaxReferrerGenerators));
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

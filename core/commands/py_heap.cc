#include "core/commands/py_heap.h"

#include "core/base/limits.h"
#include "core/commands/command_session.h"
#include "core/commands/heap_referrers.h"
#include "core/heap/heap_census.h"
#include "core/heap/memory_totals.h"
#include "core/objects/values.h"
#include "core/render/heap_format.h"
#include "core/walk/threads.h"

namespace pyunwind {
namespace {

// Groups the text shows without --top; JSON shows all.
constexpr uint64_t kDefaultTextGroups = 40;

}  // namespace

CommandOutput RunPyHeap(const ParsedArgs& args, CommandContext& context) {
  auto session = CommandSession::Open(context);
  if (!session.ok()) return Failure(session.error().message);
  TargetSession& target = **session;
  target.objects().memory().AllowMoreBytes(kMaxBytesReadForHeap);
  // The interpreters alone, unless --containers asks whose locals refer to them.
  const uint64_t containers = args.Number("--containers").value_or(0);
  WalkOptions walk;
  if (containers == 0) walk.max_frames_per_thread = 1;
  auto threads = WalkRuntime(target.objects(), target.codes(), target.location().address, walk);
  if (!threads.ok()) return Failure(threads.error().message);
  std::vector<HeapInterpreter> interpreters;
  for (const Interpreter& interp : threads->interpreters) {
    HeapInterpreter& heap = interpreters.emplace_back();
    heap.address = interp.address;
    for (const Thread& thread : interp.threads) heap.thread_states.push_back(thread.tstate_address);
  }
  ValueFormatter types(target.objects());
  if (!interpreters.empty()) types.UseBuiltinsOf(interpreters.front().address);
  HeapOptions options;
  if (auto limit = args.Number("--limit-objects")) options.max_objects = *limit;
  options.containers = containers;
  auto census = TakeHeapCensus(target.objects(), types, interpreters, options);
  if (!census.ok()) return Failure(census.error().message);
  NameContainerReferrers(target.objects(), types, *threads, *census);
  std::vector<std::string> warnings = target.location().warnings;
  for (const std::string& warning : threads->warnings) warnings.push_back(warning);
  for (std::string& warning : census->warnings) warnings.push_back(std::move(warning));
  census->warnings = std::move(warnings);

  const bool json = args.Has("--json");
  const std::optional<std::string> type = args.Text("--type");
  const uint64_t top =
      args.Number("--top").value_or(json ? census->groups.size() : kDefaultTextGroups);
  const MemoryTotals memory = WritableAnonymousMemory(context.target);
  HeapView view{&*census, {}, 0, &memory};
  for (const HeapGroup& group : census->groups) {
    if (type && group.name != *type && ShortTypeName(group.name) != *type) continue;
    if (view.shown.size() >= top) {
      ++view.not_shown;
      continue;
    }
    view.shown.push_back(group);
  }
  return {json ? FormatHeapJson(view, context.output_budget)
               : FormatHeapText(view, context.output_budget),
          false};
}

}  // namespace pyunwind

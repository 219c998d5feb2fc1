#include <fmt/format.h>

#include <map>
#include <string_view>

#include "core/base/printable.h"
#include "core/render/waits_format.h"

namespace pyunwind {
namespace {

std::string PartyText(const WaitParty& party) {
  if (party.name.empty()) {
    return party.kind == WaiterKind::kThread ? fmt::format("thread {}", party.id)
                                             : fmt::format("task {:#x}", party.id);
  }
  return fmt::format("{} \"{}\"", WaiterKindName(party.kind), PrintableText(party.name));
}

std::string HoldersText(const std::vector<WaitParty>& holders) {
  std::string text;
  for (size_t i = 0; i < holders.size(); ++i) {
    if (i) text += " and ";
    text += PartyText(holders[i]);
  }
  return text;
}

// The object waited on as the text names it: "RLock 0x...", "Event 0x...".
std::string ObjectText(const WaitTarget& target) {
  static const std::map<std::string_view, std::string_view> kShortTypes = {
      {"_thread.RLock", "RLock"}, {"_thread.lock", "Lock"},
      // 2.7's lock type, and its threading classes behind factory functions.
      {"thread.lock", "Lock"}, {"_RLock", "RLock"}, {"_Event", "Event"},
      {"_Condition", "Condition"}, {"_Semaphore", "Semaphore"},
      {"_BoundedSemaphore", "BoundedSemaphore"}};
  auto short_type = kShortTypes.find(target.type);
  const std::string type = short_type != kShortTypes.end() ? std::string(short_type->second)
                           : target.type.empty()          ? std::string("object")
                                                          : PrintableText(target.type);
  return fmt::format("{} {:#x}", type, target.address);
}

// A wait in Future.result(): run by its worker, or queued on an executor whose workers
// (`holders`) are all busy, else its state.
std::string FuturePhrase(const WaitTarget& target, const std::string& holders) {
  const std::string future = "waits for " + ObjectText(target);
  if (target.state == "RUNNING" && !holders.empty()) return future + " run by " + holders;
  if (target.state != "PENDING" || !target.executor) {
    return target.state.empty() ? future : future + " (" + PrintableText(target.state) + ")";
  }
  const ExecutorWorkers& executor = *target.executor;
  const std::string queued = future + " queued on an executor ";
  if (executor.idle_workers > 0) {
    return queued + fmt::format("with {} idle worker{}", executor.idle_workers,
                                executor.idle_workers == 1 ? "" : "s");
  }
  if (executor.workers == 1 && !holders.empty()) return queued + "whose only worker is " + holders;
  return queued + "whose workers are all busy" + (holders.empty() ? "" : ": " + holders);
}

// What the waiter does, ending with who holds it: `holders`, the text of the parties named
// (all of held_by, or in a cycle the next party).
std::string Phrase(const WaitTarget& target, const std::string& holders) {
  const std::string held = holders.empty() ? "" : " held by " + holders;
  const std::string_view kind = target.kind;
  if (kind == "rlock" || kind == "lock") {
    if (target.held_by && target.held_by->empty()) return "waits for " + ObjectText(target) + " (free)";
    return "waits for " + ObjectText(target) + held;
  }
  if (kind == "concurrent_future") return FuturePhrase(target, holders);
  if (kind == "join") return holders.empty() ? "joins " + ObjectText(target) : "joins " + holders;
  if (kind == "gil") return "waits for the GIL" + held;
  if (kind == "import_lock") {
    return "waits for the import lock " + fmt::format("{:#x}", target.address) + held;
  }
  if (kind == "task") return "awaits " + holders;
  if (kind == "sleep") return "sleeps";
  if (kind == "io") return "waits for I/O";
  if (kind == "asyncio_lock") return "awaits " + ObjectText(target) + held;
  if (kind == "asyncio_sleep" && target.sleep) {
    const SleepTimer& sleep = *target.sleep;
    const std::string due = sleep.remaining
                                ? fmt::format("due in {:.1f} s", *sleep.remaining)
                                : fmt::format("due at loop time {:.1f}", sleep.deadline);
    return fmt::format("awaits {} of a {:g} s sleep, {}", ObjectText(target), sleep.delay, due);
  }
  if (kind.substr(0, 8) == "asyncio_" || kind == "future") return "awaits " + ObjectText(target);
  return "waits on " + ObjectText(target) + held;
}

std::string CycleLine(const WaitReport& report, const std::vector<WaitParty>& cycle) {
  std::string line = "deadlock: ";
  for (size_t i = 0; i < cycle.size(); ++i) {
    const WaitParty& next = cycle[(i + 1) % cycle.size()];
    const WaitTarget* target = nullptr;
    for (const Wait& wait : report.waits) {
      if (wait.waiter == cycle[i] && wait.waits_for) target = &*wait.waits_for;
    }
    if (target == nullptr) continue;  // every party of a cycle waits: not reached
    line += i == 0 ? PartyText(cycle[i]) + " " : ", which ";
    line += Phrase(*target, next == cycle[i] ? "itself" : PartyText(next));
  }
  return line + "\n";
}

}  // namespace

std::string FormatWaitsText(const WaitReport& report, OutputBudget* budget) {
  std::string out;
  for (const auto& cycle : report.cycles) out += CycleLine(report, cycle);
  if (report.cycles.empty()) out += "no deadlock found\n";
  for (size_t i = 0; i < report.waits.size(); ++i) {
    if (budget != nullptr && !budget->Fits(out.size(), 0)) {
      out += fmt::format("... {} more waits not shown ({})\n", report.waits.size() - i,
                         budget->Bound());
      break;
    }
    const Wait& wait = report.waits[i];
    const WaitParty& w = wait.waiter;
    out += PartyText(w);
    out += w.kind == WaiterKind::kThread ? fmt::format(" (ident {}): ", w.id)
                                         : fmt::format(" ({:#x}): ", w.id);
    if (!wait.waits_for) {
      out += w.kind == WaiterKind::kThread ? "running or no known wait\n" : "ready to run\n";
      continue;
    }
    const WaitTarget& target = *wait.waits_for;
    out += Phrase(target, target.held_by ? HoldersText(*target.held_by) : "");
    if (!target.detail.empty()) out += " (" + PrintableText(target.detail) + ")";
    if (target.nothing_can_wake) out += ", held by nothing else: nothing can wake it";
    out += '\n';
  }
  for (const std::string& warning : report.warnings) out += "warning: " + PrintableText(warning) + "\n";
  return out;
}

}  // namespace pyunwind

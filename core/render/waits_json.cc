#include <fmt/format.h>

#include "core/render/json_string.h"
#include "core/render/waits_format.h"

namespace pyunwind {
namespace {

// What `append` writes when `present`, else JSON null.
template <typename Append>
void AppendOrNull(std::string& out, bool present, Append append) {
  if (present) {
    append();
  } else {
    out += "null";
  }
}

// A thread's id is its ident (a number), a task's its address ("0x...", as py-tasks' "id").
void AppendParty(std::string& out, const WaitParty& party) {
  out += fmt::format("{{\"kind\":\"{}\",\"id\":", WaiterKindName(party.kind));
  out += party.kind == WaiterKind::kThread ? fmt::format("{}", party.id)
                                           : fmt::format("\"{:#x}\"", party.id);
  out += ",\"name\":";
  AppendJsonString(out, party.name);
  out += '}';
}

void AppendParties(std::string& out, const std::vector<WaitParty>& parties) {
  out += '[';
  for (size_t i = 0; i < parties.size(); ++i) {
    if (i) out += ',';
    AppendParty(out, parties[i]);
  }
  out += ']';
}

void AppendTarget(std::string& out, const WaitTarget& target) {
  out += "{\"kind\":";
  AppendJsonString(out, target.kind);
  out += ",\"address\":";
  AppendOrNull(out, target.address != 0,
               [&] { out += fmt::format("\"{:#x}\"", target.address); });
  out += ",\"type\":";
  AppendOrNull(out, !target.type.empty(), [&] { AppendJsonString(out, target.type); });
  out += ",\"held_by\":";
  AppendOrNull(out, target.held_by.has_value(), [&] { AppendParties(out, *target.held_by); });
  out += ",\"detail\":";
  AppendJsonString(out, target.detail);
  out += ",\"state\":";
  if (target.state.empty()) {
    out += "null";
  } else {
    AppendJsonString(out, target.state);
  }
  out += ",\"executor\":";
  if (target.executor) {
    const ExecutorWorkers& executor = *target.executor;
    out += "{\"address\":";
    out += executor.address ? fmt::format("\"{:#x}\"", executor.address) : "null";
    out += fmt::format(",\"workers\":{},\"idle_workers\":{}}}", executor.workers,
                       executor.idle_workers);
  } else {
    out += "null";
  }
  out += ",\"sleep\":";
  AppendOrNull(out, target.sleep.has_value(), [&] {
    const SleepTimer& sleep = *target.sleep;
    out += fmt::format("{{\"delay\":{},\"deadline\":{},\"remaining\":", sleep.delay,
                       sleep.deadline);
    AppendOrNull(out, sleep.remaining.has_value(),
                 [&] { out += fmt::format("{}", *sleep.remaining); });
    out += '}';
  });
  out += ",\"nothing_can_wake\":";
  out += target.nothing_can_wake ? "true" : "false";
  out += '}';
}

}  // namespace

std::string FormatWaitsJson(const WaitReport& report, OutputBudget* budget) {
  std::string cycles = ",\"cycles\":[";
  for (size_t i = 0; i < report.cycles.size(); ++i) {
    if (i) cycles += ',';
    AppendParties(cycles, report.cycles[i]);
  }
  cycles += ']';
  std::string out = "{\"waits\":[";
  std::vector<std::string> warnings = report.warnings;
  size_t shown = 0;
  for (; shown < report.waits.size(); ++shown) {
    if (budget != nullptr && !budget->Fits(out.size() + cycles.size(), 0)) {
      warnings.push_back(fmt::format("{} waits not shown: {}", report.waits.size() - shown,
                                     budget->Bound()));
      break;
    }
    const size_t i = shown;
    const Wait& wait = report.waits[i];
    if (i) out += ',';
    // The waiter's kind, id and name, then what it waits for.
    std::string party;
    AppendParty(party, wait.waiter);
    party.pop_back();
    out += party;
    out += ",\"waits_for\":";
    AppendOrNull(out, wait.waits_for.has_value(), [&] { AppendTarget(out, *wait.waits_for); });
    out += '}';
  }
  out += fmt::format("],\"waits_not_shown\":{}", report.waits.size() - shown);
  out += cycles;
  out += ",\"warnings\":";
  AppendJsonStrings(out, warnings);
  out += "}\n";
  return out;
}

}  // namespace pyunwind

// py-waits' text and JSON (core/waits/wait_model.h): every cycle first, one line each, then
// each thread's and task's wait.
#pragma once

#include <string>

#include "core/render/output_writer.h"
#include "core/waits/wait_model.h"

namespace pyunwind {

// "deadlock: ..." lines, then one line per waiter, then the warnings ("warning: ...").
// Past `budget` (null: none) no more waiters are added; one line says how many were not.
std::string FormatWaitsText(const WaitReport& report, OutputBudget* budget = nullptr);
// {"waits": [...], "waits_not_shown": N, "cycles": [...], "warnings": [...]}
// (docs/json-output.md). Past `budget` no more waits are added: the document stays whole,
// "waits_not_shown" counts the rest and a warning says which bound ran out; the cycles are
// always there.
std::string FormatWaitsJson(const WaitReport& report, OutputBudget* budget = nullptr);

}  // namespace pyunwind

// py-waits' text and JSON (core/waits/wait_model.h): every cycle first, one line each, then
// each thread's and task's wait.
#pragma once

#include <string>

#include "core/waits/wait_model.h"

namespace pyunwind {

// "deadlock: ..." lines, then one line per waiter, then the warnings ("warning: ...").
std::string FormatWaitsText(const WaitReport& report);
// {"waits": [...], "cycles": [...], "warnings": [...]} (docs/json-output.md).
std::string FormatWaitsJson(const WaitReport& report);

}  // namespace pyunwind

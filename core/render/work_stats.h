// What --stats says of the work budget (core/base/work_budget.h): how much of
// each kind one command spent, against what it may spend, so that a user (and
// bench/) sees how far a real program is from the budget.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/base/work_budget.h"

namespace pyunwind {

// "work (spent/budget): 4096/17179869184 bytes read, 3/131072 frames visited, ..."
std::string WorkStatsText(const WorkBudget& budget);

// {"frames_visited": {"spent": 3, "budget": 131072}, ...}
nlohmann::ordered_json WorkStatsJson(const WorkBudget& budget);

}  // namespace pyunwind

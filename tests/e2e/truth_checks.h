// Checks of a debugger's output against the truth a scenario records about itself, written
// once for the tests that share them.
#pragma once

#include <cstddef>
#include <string>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_sources.h"

namespace pyunwind_e2e {

// Each frame's "calling" of a `py-bt --json` thread, innermost first.
json CallingOf(const json& thread);

// That py-bt's `thread` (--json) calls, frame by frame, what the truth's thread `want`
// recorded (its "calling"), and that py-bt's `text` shows each name under its frame, indented
// like a source line. Adds the names (the non-null entries) to *named.
void ExpectCallsAsTruth(const json& thread, const json& want, const std::string& text,
                        size_t* named);

// A debugger-version case's install and scenario source (a fixture core, or a live process):
// both left null where the test was skipped (no fixture core here, or the source cannot be
// had here) or failed.
void FindInstallAndSource(const SourceCase& c, const Install** install, const Source** source);

// That run `r` of `command` (`py-tasks --json`, else `py-bt --all --json`) in the debugger
// of `version` exited normally and printed one JSON document that matches `truth`
// (CompareTasks, CompareWithTruth). A fatal failure where the run or its JSON went wrong.
void ExpectJsonAsTruth(const RunResult& r, const std::string& command, const std::string& version,
                       const json& truth);

}  // namespace pyunwind_e2e

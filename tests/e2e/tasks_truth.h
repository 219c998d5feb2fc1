// `py-tasks --json` against the truth an asyncio scenario records from inside
// (../shared/fixtures/scenarios/asyncio_tree.py and the like): written once for the tests
// that check it in one debugger (asyncio_e2e_test) and in every debugger version
// (lldb_versions_test, gdb_versions_test).
#pragma once

#include <cstdint>
#include <string>

#include "tests/e2e/harness.h"
#include "tests/tasks_facts.h"

namespace pyunwind_e2e {

using pyunwind::testing::StackKey;

// The OS thread id of the truth's event-loop thread (role "loop"), 0 if none.
uint64_t LoopThread(const json& truth);

// Every difference between `py-tasks --json` and the truth, "" when none: no warnings, the
// same task names, each task's coroutine stack, awaited_by edges (name and kind, each naming
// a task by its id), state pending, the loop's thread, the running task.
std::string CompareTasks(const json& truth, const json& got);

}  // namespace pyunwind_e2e

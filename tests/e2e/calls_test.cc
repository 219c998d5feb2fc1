// Calls into C: tests/data/calls.py parks threads inside C calls (time.sleep, a
// lock's acquire as a method descriptor and as a bound C method, sorted calling back into a
// Python key function that sleeps, select.select, time.sleep(*args), a C method with keyword
// arguments, time.sleep deep inside a loop, a with and a try block and nested displays,
// dict.fromkeys resuming a generator that sleeps, and a functools.partial)
// and records from inside, per Python frame innermost first, what that frame calls: repr() of
// the callee as the process gives it (a functools.partial: object.__repr__'s) on the
// innermost frame and on the frame that called sorted or dict.fromkeys, null elsewhere. `py-bt --all --json` must give exactly that list as the
// frames' `calling`, and the text must show each name under its frame. From a gcore core
// opened alone (no executable: the names' read-only data is not in the core) each `calling`
// is that or null, never another name. In {LLDB, GDB} x
// {live, gcore core with its executable, alone} on pyenv's 2.7.18 (bytecode of 1- and 3-byte
// instructions; the keywords call an epoll's poll) and 3.6.15 to 3.10.13 (frame
// objects: the value stack at f_valuestack, each frame above a Python one asked), Debian's
// 3.11, pyenv's 3.11.7, 3.12.1, 3.13.0, Debian unstable's 3.14 and 3.15 and the free-threaded
// 3.13t (built from Debian's source; not on CI)
// (.ci/fetch-pythons), where installed.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"
#include "tests/e2e/truth_checks.h"

namespace pyunwind_e2e {
namespace {

class Calls : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/calls.py"); }
};

TEST_P(Calls, EachFrameCallsWhatTheProcessRecorded) {
  const MatrixCell& cell = GetParam();
  std::string error;
  const json& truth = scenario_->truth();
  ASSERT_EQ(truth.at("threads").size(), 11u) << truth.dump(1);

  // From a core alone, without the interpreter's read-only data (which a gcore core leaves
  // out), a C function's name may be unreadable (null), never another one.
  const RunResult run = RunDebugger(cell.debugger, *install_, target_,
                                    {"py-bt --all --json", "py-bt --all --no-source"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got.has_value()) << error << "\n" << run.Describe();

  const std::map<uint64_t, json> threads = ThreadsByNativeId(*got);
  size_t named = 0;
  for (const json& want : truth.at("threads")) {
    const std::string role = want.at("role");
    SCOPED_TRACE("thread " + role);
    auto found = threads.find(want.at("native_id").get<uint64_t>());
    if (found == threads.end()) {
      ADD_FAILURE() << "missing";
      continue;
    }
    if (!cell.live && !cell.with_executable) {
      const json calling = CallingOf(found->second);
      ASSERT_EQ(calling.size(), want.at("calling").size());
      for (size_t i = 0; i < calling.size(); ++i) {
        if (!calling[i].is_null()) {
          EXPECT_EQ(calling[i], want.at("calling")[i]) << "frame " << i;
          ++named;
        }
      }
      continue;
    }
    ExpectCallsAsTruth(found->second, want, run.out, &named);
  }
  // 13 calls the scenario makes; on 3.14+ also each thread's start, Context.run (10 threads).
  size_t recorded = 0;
  for (const json& want : truth.at("threads")) {
    for (const json& name : want.at("calling")) recorded += name.is_null() ? 0 : 1;
  }
  EXPECT_EQ(recorded, truth.at("python").at("hexversion").get<int64_t>() >= 0x030E0000 ? 23u : 13u);
  if (cell.live || cell.with_executable) {
    EXPECT_EQ(named, recorded);
  } else {
    std::cout << "named from the core alone: " << named << " of " << recorded << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Interpreters, Calls,
                         ::testing::ValuesIn(MatrixCells({"2.7.18", "3.6.15", "3.7.16", "3.8.18", "3.9.18", "3.10.13",
                                                          "debian_3.11", "3.11.7", "3.12.1",
                                                          "3.13.0", "sid_3.14", "sid_3.15",
                                                          "built_3.13t"},
                                                         Cores::kBoth)),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e

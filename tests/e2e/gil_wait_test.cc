// "waiting for the GIL" on every version: tests/data/gil_wait.py keeps the GIL in a spinning
// main thread (switch interval one hour) while a waiter wakes from a short sleep and then
// waits for the GIL for ever, and a third thread sleeps. Live on Debian's 3.11, its debug
// build 3.11d and Debian unstable's 3.15 (.ci/fetch-pythons), in LLDB and GDB: the waiter's
// activity is "waiting for the GIL" and its header says so, once (3.15 from the thread
// state, also status "gil_requested"; 3.11 from take_gil on its native stack); the spinner
// holds the GIL and the sleeper waits for nothing else. The GIL's holder is among the
// threads, so no warning says it is not shown, also in GDB's `thread apply all py-bt`, which
// asks for one thread at a time. The waiter reaches its state a few milliseconds after the
// truth is written and keeps it: the check is repeated until it is there (at most kAttempts
// times), never by a fixed sleep.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <tuple>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

constexpr int kAttempts = 50;
const char* const kScript = "tests/data/gil_wait.py";
const char* const kWaiting = "waiting for the GIL";

using Cell = std::tuple<std::string, Debugger>;  // interpreter, debugger

class GilWait : public ::testing::TestWithParam<Cell> {
 public:
  static void TearDownTestSuite() { ScenarioMatrixTest::TearDownTestSuite(); }
};

TEST_P(GilWait, WaiterIsWaitingForTheGil) {
  const auto& [interp, debugger] = GetParam();
  std::string skip, error;
  const Scenario* scenario = MatrixScenario(interp, kScript, &skip, &error);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_NE(scenario, nullptr) << error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  std::map<std::string, uint64_t> ids;  // role -> native id
  for (const json& t : scenario->truth().at("threads")) ids[t.at("role")] = t.at("native_id");
  ASSERT_EQ(ids.size(), 3u);
  const bool in_thread_state =
      scenario->truth().at("python").at("hexversion").get<int64_t>() >= 0x030F0000;

  Target target;
  target.pid = scenario->pid();
  std::vector<std::string> commands = {"py-bt --all --json", "py-bt --all --no-source"};
  if (debugger == Debugger::kGdb) commands.push_back("thread apply all py-bt --no-source");
  RunResult run;
  std::map<uint64_t, json> threads;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    run = RunDebugger(debugger, *install, target, commands);
    ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
    auto got = ExtractJson(run.out, &error);
    ASSERT_TRUE(got) << error << "\n" << run.Describe();
    threads = ThreadsByNativeId(*got);
    if (threads.count(ids["waiter"]) && threads[ids["waiter"]].at("activity") == kWaiting) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(threads.count(ids["waiter"]), 1u) << run.Describe();
  const json& waiter = threads[ids["waiter"]];
  EXPECT_EQ(waiter.at("activity"), kWaiting) << waiter.dump();
  EXPECT_EQ(HasStatus(waiter, "gil_requested"), in_thread_state) << waiter.dump();
  EXPECT_EQ(waiter.at("holds_gil"), false);
  EXPECT_NE(threads[ids["sleeper"]].at("activity"), kWaiting) << threads[ids["sleeper"]].dump();
  EXPECT_FALSE(HasStatus(threads[ids["sleeper"]], "gil_requested"));
  EXPECT_NE(threads[ids["spinner"]].at("activity"), kWaiting) << threads[ids["spinner"]].dump();
  EXPECT_EQ(threads[ids["spinner"]].at("holds_gil"), true);
  // The text's header of the waiter says it once, in py-bt --all and (GDB) thread apply all.
  const size_t texts = debugger == Debugger::kGdb ? 2 : 1;
  size_t said = 0;
  for (const std::string& line : LinesContaining(run.out, kWaiting)) {
    said += line.rfind("Thread " + std::to_string(ids["waiter"]) + " ", 0) == 0;
  }
  EXPECT_EQ(said, texts) << run.out;
  EXPECT_EQ(LinesContaining(run.out, std::string("(") + kWaiting).size() +
                LinesContaining(run.out, std::string(", ") + kWaiting).size(),
            texts)
      << run.out;
  EXPECT_TRUE(LinesContaining(run.out, "which is not shown").empty()) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Interpreters, GilWait,
                         ::testing::Combine(::testing::Values("debian_3.11", "debian_3.11d", "sid_3.15"),
                                            ::testing::Values(Debugger::kLldb, Debugger::kGdb)),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName(std::get<0>(info.param)) + "_" +
                                  DebuggerName(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace pyunwind_e2e

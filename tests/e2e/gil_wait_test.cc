// 3.15's "waiting for the GIL": tests/data/gil_wait.py keeps the GIL in a spinning main thread
// (switch interval one hour) while a waiter wakes from a short sleep and then waits for the GIL
// for ever, and a third thread sleeps. Live on Debian unstable's 3.15 (.ci/fetch-pythons), in
// LLDB and GDB: the waiter's status has "gil_requested" and its header says "waiting for the
// GIL"; the spinner holds the GIL and the sleeper waits for nothing. The waiter reaches its
// state a few milliseconds after the truth is written and keeps it: the check is repeated
// until it is there (at most kAttempts times), never by a fixed sleep.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

constexpr int kAttempts = 50;

class GilWait : public ::testing::TestWithParam<Debugger> {
 public:
  static void TearDownTestSuite() { scenario_.reset(); }

 protected:
  static std::unique_ptr<Scenario> scenario_;
};

std::unique_ptr<Scenario> GilWait::scenario_;

TEST_P(GilWait, WaiterIsWaitingForTheGil) {
  const auto python = SidPython("3.15");
  if (!python) GTEST_SKIP() << "Debian unstable's Python 3.15 is not unpacked (.ci/fetch-pythons)";
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  if (!scenario_) {
    scenario_ = Scenario::StartScript(*python, ProjectFile("tests/data/gil_wait.py"), &error);
    ASSERT_NE(scenario_, nullptr) << error;
  }
  std::map<std::string, uint64_t> ids;  // role -> native id
  for (const json& t : scenario_->truth().at("threads")) ids[t.at("role")] = t.at("native_id");
  ASSERT_EQ(ids.size(), 3u);

  Target target;
  target.pid = scenario_->pid();
  RunResult run;
  std::map<uint64_t, json> threads;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    run = RunDebugger(GetParam(), *install, target, {"py-bt --all --json", "py-bt --all --no-source"});
    ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
    auto got = ExtractJson(run.out, &error);
    ASSERT_TRUE(got) << error << "\n" << run.Describe();
    threads = ThreadsByNativeId(*got);
    if (threads.count(ids["waiter"]) && HasStatus(threads[ids["waiter"]], "gil_requested")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(threads.count(ids["waiter"]), 1u) << run.Describe();
  EXPECT_TRUE(HasStatus(threads[ids["waiter"]], "gil_requested")) << threads[ids["waiter"]].dump();
  EXPECT_FALSE(HasStatus(threads[ids["sleeper"]], "gil_requested")) << threads[ids["sleeper"]].dump();
  EXPECT_FALSE(HasStatus(threads[ids["spinner"]], "gil_requested")) << threads[ids["spinner"]].dump();
  EXPECT_EQ(threads[ids["spinner"]].at("holds_gil"), true);
  EXPECT_EQ(threads[ids["waiter"]].at("holds_gil"), false);
  size_t said = 0;
  for (const std::string& line : LinesContaining(run.out, "waiting for the GIL")) {
    said += line.rfind("Thread " + std::to_string(ids["waiter"]) + " ", 0) == 0;
  }
  EXPECT_EQ(said, 1u) << run.out;
  EXPECT_EQ(LinesContaining(run.out, "waiting for the GIL").size(), 1u) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Debuggers, GilWait, ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return DebuggerName(info.param);
                         });

}  // namespace
}  // namespace pyunwind_e2e

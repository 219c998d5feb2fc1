// GDB's `bt` decoration (the script's frame filter) decides once per inferior whether it runs
// Python, from the files GDB loaded, and does nothing more in one that does not: a C program's
// `bt` is GDB's own, undecorated, the filter remembers "no Python" for that inferior and is
// not enabled there (GDB prints a `bt` through Python whenever a filter is enabled). In a
// Python process it decorates the eval-loop frames and remembers "Python"; `disable
// frame-filter` and `enable frame-filter` still switch it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

constexpr char kAskFilter[] =
    "python print('PYU_KNOWN', sorted(gdb.frame_filters['pyunwind'].python_by_target.values(), "
    "key=str))";
constexpr char kAskEnabled[] = "python print('PYU_ENABLED', gdb.frame_filters['pyunwind'].enabled)";

TEST(FrameFilter, LeavesANonPythonProcessAloneAndRemembersIt) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto sleeper = Process::Spawn({{"sleep", "600"}, {}, "", ""}, &error);
  ASSERT_NE(sleeper, nullptr) << error;
  const RunResult run =
      RunDebugger(Debugger::kGdb, *install, {sleeper->pid(), "", ""},
                  {"bt", "bt", kAskFilter, kAskEnabled, "enable frame-filter global pyunwind",
                   kAskEnabled});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  EXPECT_EQ(run.out.find("[Python:"), std::string::npos) << run.Describe();
  EXPECT_EQ(LinesContaining(run.out, "#0  ").size(), 2u) << run.Describe();
  EXPECT_EQ(LinesContaining(run.out, "PYU_KNOWN [False]").size(), 1u) << run.Describe();
  // Not enabled, even when asked to be: no Python runs here.
  EXPECT_EQ(LinesContaining(run.out, "PYU_ENABLED False").size(), 2u) << run.Describe();
}

// Debian's python3.11, and the same program under another name, as a program that embeds
// Python is: no libpython, no "python3.X" file, so the decision comes from _PyRuntime in the
// executable's own string tables.
class DecoratesAPythonProcess : public ::testing::TestWithParam<bool> {};

TEST_P(DecoratesAPythonProcess, AndRemembersIt) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  std::string python = kDebianPython;
  if (GetParam()) {
    python = TempDir() + "/embedder";
    std::error_code copied;
    std::filesystem::copy_file(kDebianPython, python,
                               std::filesystem::copy_options::overwrite_existing, copied);
    ASSERT_FALSE(copied) << copied.message();
  }
  auto scenario = Scenario::StartScript(python, ProjectFile("tests/data/moving_stack.py"), &error);
  ASSERT_NE(scenario, nullptr) << error;
  const RunResult run =
      RunDebugger(Debugger::kGdb, *install, {scenario->pid(), "", ""},
                  {"bt", kAskFilter, kAskEnabled, "disable frame-filter global pyunwind",
                   kAskEnabled, "bt", "enable frame-filter global pyunwind", kAskEnabled, "bt"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const json& first = scenario->truth().at("first").at(0);
  const std::string decoration =
      "[Python: first_place at moving_stack.py:" + std::to_string(first.at("line").get<int>());
  // The first and the last bt are decorated; the one while disabled is not.
  EXPECT_EQ(LinesContaining(run.out, decoration).size(), 2u) << run.Describe();
  EXPECT_EQ(LinesContaining(run.out, "PYU_KNOWN [True]").size(), 1u) << run.Describe();
  EXPECT_EQ(LinesContaining(run.out, "PYU_ENABLED True").size(), 2u) << run.Describe();
  EXPECT_EQ(LinesContaining(run.out, "PYU_ENABLED False").size(), 1u) << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(FrameFilter, DecoratesAPythonProcess, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "UnderAnotherName" : "Python311";
                         });

// IDEs that drive GDB through GDB/MI (VS Code's C/C++ extension, CLion, Emacs gdb-mi) show
// the call stack of `-stack-list-frames`: GDB applies frame filters there once the front end
// sent `-enable-frame-filters` (MI starts with them off), and then the eval-loop frames carry
// the Python frames as in `bt`. The commands reach MI's console stream (`~"..."` records).
TEST(FrameFilter, ReachesGdbMiStackListFramesOnceEnabled) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto scenario =
      Scenario::StartScript(kDebianPython, ProjectFile("tests/data/moving_stack.py"), &error);
  ASSERT_NE(scenario, nullptr) << error;
  auto mi = [](const std::string& command) {
    std::string quoted;
    for (char c : command) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return "interpreter-exec mi3 \"" + quoted + "\"";
  };
  const RunResult run = RunDebugger(
      Debugger::kGdb, *install, {scenario->pid(), "", ""},
      {mi("-stack-list-frames"), mi("-enable-frame-filters"), mi("-stack-list-frames"),
       mi("-interpreter-exec console \"py-bt\"")});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const std::vector<std::string> stacks = LinesContaining(run.out, "^done,stack=[");
  ASSERT_EQ(stacks.size(), 2u) << run.Describe();
  EXPECT_EQ(stacks[0].find("[Python:"), std::string::npos) << stacks[0];
  const json& first = scenario->truth().at("first").at(0);
  const std::string decorated = "func=\"_PyEval_EvalFrameDefault [Python: first_place at moving_stack.py:" +
                                std::to_string(first.at("line").get<int>());
  EXPECT_NE(stacks[1].find(decorated), std::string::npos) << decorated << "\n" << stacks[1];
  bool console_traceback = false;  // py-bt's text in an MI console record
  for (const std::string& line : LinesContaining(run.out, "Traceback (most recent call first):")) {
    console_traceback |= line.rfind("~\"", 0) == 0;
  }
  EXPECT_TRUE(console_traceback) << run.Describe();
}

}  // namespace
}  // namespace pyunwind_e2e

// A thread stopped while an exception propagates (tests/data/raising.py): the debugger breaks
// on close(2) as the eval loop drops an epoll object from the value stack of the frame the
// exception is leaving, before any handler has it. py-bt must say the thread is raising it
// ("exception_state": "raised", `raising RaisedHere` in the header), with its message where
// the thread state holds the exception itself (3.12+; 3.11 keeps only its type there), over
// the stack the scenario wrote down before it was told to raise. LLDB and GDB, live, on every
// interpreter installed of Debian's 3.11, pyenv's 3.12.1 and 3.13.0, Debian unstable's 3.14 and
// 3.15 and the free-threaded 3.13t built from Debian's source (not on CI).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

using Cell = std::tuple<Debugger, std::string>;  // debugger, interpreter (InterpreterPath)

class ExceptionRaised : public ::testing::TestWithParam<Cell> {};

TEST_P(ExceptionRaised, AThreadStoppedWhileItRaisesSaysSo) {
  const auto& [debugger, interp] = GetParam();
  const std::string not_on_ci = InterpreterNotUsedOnCi(interp);
  if (!not_on_ci.empty()) GTEST_SKIP() << not_on_ci;
  const std::optional<std::string> python = InterpreterPath(interp);
  if (!python) GTEST_SKIP() << interp << " is not installed here";
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto scenario = Scenario::StartScript(*python, ProjectFile("tests/data/raising.py"), &error);
  ASSERT_NE(scenario, nullptr) << error;
  const std::string pid = std::to_string(scenario->pid());
  const bool lldb = debugger == Debugger::kLldb;

  const RunResult run = RunDebugger(
      debugger, *install, {scenario->pid(), "", ""},
      {lldb ? "breakpoint set -n close" : "break close",
       lldb ? "platform shell kill -USR1 " + pid : "shell kill -USR1 " + pid,
       lldb ? "process continue" : "continue", "py-bt --json", "py-bt"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  auto doc = ExtractJson(run.out, &error);
  ASSERT_TRUE(doc.has_value()) << error << "\n" << run.Describe();

  const json& want = scenario->truth().at("raising");
  const json& thread = doc->at("interpreters").at(0).at("threads").at(0);
  EXPECT_EQ(thread.at("exception_state"), "raised") << run.Describe();
  EXPECT_EQ(thread.at("exception"), want.at("exception"));
  const bool holds_the_exception = doc->at("python").at("hexversion").get<int64_t>() >= 0x030c0000;
  EXPECT_EQ(thread.at("exception_message"),
            holds_the_exception ? want.at("message") : json(nullptr));
  json frames = json::array();
  for (const json& frame : thread.at("frames")) {
    frames.push_back({frame.at("filename"), frame.at("line"), frame.at("qualname")});
  }
  json want_frames = json::array();
  for (const json& frame : want.at("stack")) {
    want_frames.push_back({frame.at("filename"), frame.at("line"), frame.at("qualname")});
  }
  EXPECT_EQ(frames, want_frames);
  EXPECT_NE(run.out.find("raising RaisedHere"), std::string::npos) << run.Describe();
}

std::string CellName(const ::testing::TestParamInfo<Cell>& info) {
  std::string name = std::string(DebuggerName(std::get<0>(info.param))) + "_" + std::get<1>(info.param);
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Interpreters, ExceptionRaised,
    ::testing::Combine(::testing::Values(Debugger::kLldb, Debugger::kGdb),
                       ::testing::Values("debian_3.11", "3.12.1", "3.13.0", "sid_3.14",
                                         "sid_3.15", "built_3.13t")),
    CellName);

}  // namespace
}  // namespace pyunwind_e2e

// Issue 13: py-print NAME. The main thread of tests/data/source_spans.py parks in
// main_park() (called by main_outer(outer_arg)) with locals longer and deeper than
// py-locals shows (a 503-character str, a list nested 6 deep), a cell variable, and the
// module's GLOBAL_TABLE (about 1,400 characters of repr); it records repr() of each from
// inside the process ("print_truth"). In LLDB and GDB, live and from a gcore core, on
// Debian's 3.11 and pyenv's 3.12.1 and 3.13.0 where installed, py-print must print exactly
// that repr, say where the name was found (local, cell, global, builtin) in Python's lookup
// order, follow py-up, cut at --max-chars, and say in one line when a name is not there.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

struct Cell {
  std::string interp;
  bool live = true;
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << c.interp << ", " << (c.live ? "live" : "gcore core") << ", " << DebuggerName(c.debugger);
}

std::map<std::string, ScenarioWithCore>& Shared() {
  static std::map<std::string, ScenarioWithCore> shared;
  return shared;
}

class PyPrint : public ::testing::TestWithParam<Cell> {
 public:
  static void TearDownTestSuite() { Shared().clear(); }
};

TEST_P(PyPrint, FullReprAsPythonsRepr) {
  const Cell& cell = GetParam();
  const auto python = InterpreterPath(cell.interp);
  if (!python) GTEST_SKIP() << "the interpreter " << cell.interp << " is not installed";
  std::string error;
  const Scenario* scenario =
      Shared()[cell.interp].StartScript(*python, ProjectFile("tests/data/source_spans.py"), &error);
  ASSERT_NE(scenario, nullptr) << error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  Target target;
  if (cell.live) {
    target.pid = scenario->pid();
  } else {
    target.core = Shared()[cell.interp].Core(SanitizeName("print_" + cell.interp), &error);
    ASSERT_FALSE(target.core.empty()) << error;
  }
  const json& truth = scenario->truth().at("print_truth");
  const std::string long_text = truth.at("long_text");
  const std::string deep = truth.at("deep");
  const RunResult r = RunDebugger(
      cell.debugger, *install, target,
      // LLDB's batch mode stops at the first failed command: the one not found comes last.
      {"py-print long_text", "py-print deep", "py-print counted", "py-print GLOBAL_TABLE",
       "py-print len", "py-print long_text --max-chars 50", "py-print deep --depth 1",
       "py-locals", "py-up", "py-print outer_arg", "py-print deep"});
  ASSERT_TRUE(r.exited) << r.Describe();
  const std::string all = r.out + r.err;
  const std::vector<std::string> want = {
      "local 'long_text' = " + long_text + "\n",
      "local 'deep' = " + deep + "\n",
      "cell 'counted' = " + truth.at("counted").get<std::string>() + "\n",
      "global 'GLOBAL_TABLE' = " + truth.at("GLOBAL_TABLE").get<std::string>() + "\n",
      "builtin 'len' = <builtin_function_or_method object at 0x",
      "local 'long_text' = " + long_text.substr(0, 50) + "...\n",
      "local 'deep' = [[...], {...}]\n",
      "local 'outer_arg' = " + truth.at("outer_arg").get<std::string>() + "\n",
      "py-print: 'deep' is not defined in frame #1 (main_outer): no local, global or builtin "
      "has that name",
  };
  for (const std::string& line : want) {
    EXPECT_NE(all.find(line), std::string::npos) << "missing: " << line << "\n" << r.Describe();
  }
  // What py-print shows is more than py-locals does: its repr of the same values is cut.
  EXPECT_GT(long_text.size(), 200u);
  EXPECT_EQ(all.find("  long_text = " + long_text + "\n"), std::string::npos) << r.Describe();
  EXPECT_EQ(all.find("  deep = " + deep + "\n"), std::string::npos) << r.Describe();
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (const char* interp : {"debian_3.11", "3.12.1", "3.13.0"})
    for (bool live : {true, false})
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({interp, live, d});
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Interpreters, PyPrint, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName(info.param.interp + "_" +
                                               (info.param.live ? "live_" : "core_") +
                                               DebuggerName(info.param.debugger));
                         });

}  // namespace
}  // namespace pyunwind_e2e

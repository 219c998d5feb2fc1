// py-print NAME. The main thread of tests/data/source_spans.py parks in
// main_park() (called by main_outer(outer_arg)) with locals longer and deeper than
// py-locals shows (a 503-character str, a list nested 6 deep), a cell variable, and the
// module's GLOBAL_TABLE (about 1,400 characters of repr); it records repr() of each from
// inside the process ("print_truth"). In LLDB and GDB, live and from a gcore core, on
// Debian's 3.11, pyenv's 3.12.1 and 3.13.0, Debian unstable's 3.14 and 3.15 and the free-threaded
// 3.13t built from Debian's source (not on CI) where installed, py-print must print exactly
// that repr, say where the name was found (local, cell, global, builtin) in Python's lookup
// order, follow py-frame N, cut at --max-chars, and say in one line when a name is not there.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

class PyPrint : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/source_spans.py"); }
};

TEST_P(PyPrint, FullReprAsPythonsRepr) {
  const MatrixCell& cell = GetParam();
  std::string error;
  const json& truth = scenario_->truth().at("print_truth");
  const std::string long_text = truth.at("long_text");
  const std::string deep = truth.at("deep");
  const std::string huge_text = truth.at("huge_text");
  ASSERT_GT(huge_text.size(), 10000u);
  const RunResult r = RunDebugger(
      cell.debugger, *install_, target_,
      // LLDB's batch mode stops at the first failed command: the one not found comes last.
      {"py-print long_text", "py-print deep", "py-print counted", "py-print GLOBAL_TABLE",
       "py-print len", "py-print long_text --max-chars 50", "py-print deep --depth 1",
       "py-print huge_text", "py-print huge_text --max-chars 30000",
       "py-locals", "py-frame 1", "py-print outer_arg", "py-print deep"});
  ASSERT_TRUE(r.exited) << r.Describe();
  const std::string all = r.out + r.err;
  const std::vector<std::string> want = {
      "local 'long_text' = " + long_text + "\n",
      "local 'deep' = " + deep + "\n",
      "cell 'counted' = " + truth.at("counted").get<std::string>() + "\n",
      "global 'GLOBAL_TABLE' = " + truth.at("GLOBAL_TABLE").get<std::string>() + "\n",
      "builtin 'len' = <built-in function len>\n",
      "local 'long_text' = " + long_text.substr(0, 50) + "...\n",
      "local 'deep' = [[...], {...}]\n",
      // By default at most 10,000 characters; --max-chars raises it.
      "local 'huge_text' = " + huge_text.substr(0, 10000) + "...\n",
      "local 'huge_text' = " + huge_text + "\n",
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

INSTANTIATE_TEST_SUITE_P(Interpreters, PyPrint,
                         ::testing::ValuesIn(MatrixCells({"debian_3.11", "3.12.1", "3.13.0", "sid_3.14",
                                                          "sid_3.15", "built_3.13t"})),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e

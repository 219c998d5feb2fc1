// Await cycles, as `python -m asyncio pstree` reports them: tests/data/asyncio_cycle.py parks
// task a awaiting b and b awaiting a, c -> d -> e -> c, f awaiting a (on a cycle, not in one)
// and g awaiting h (no cycle), and records from inside what each task awaits and the cycles.
// On Debian's 3.11, in LLDB and GDB, live and from a gcore core without the executable:
// py-tasks --tree lists exactly the truth's cycles, each once (`cycle: a → b → a`), under one
// line that counts them and above the tree, which still shows every task; py-tasks --json's
// "await_cycles" holds the same cycles with the tasks' ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

constexpr char kScript[] = "tests/data/asyncio_cycle.py";
constexpr char kArrow[] = " → ";

class AwaitCycles : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start(kScript); }
};

// A cycle's names from its least, as the truth writes them.
std::vector<std::string> FromLeast(std::vector<std::string> cycle) {
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  return cycle;
}

// "cycle: a → b → a" as {"a", "b"}.
std::vector<std::string> CycleOfLine(const std::string& line) {
  std::vector<std::string> names;
  std::string rest = line.substr(line.find("cycle: ") + 7);
  for (size_t arrow; (arrow = rest.find(kArrow)) != std::string::npos;) {
    names.push_back(rest.substr(0, arrow));
    rest = rest.substr(arrow + std::string(kArrow).size());
  }
  EXPECT_FALSE(names.empty()) << line;
  EXPECT_EQ(names.empty() ? "" : names.front(), rest) << "a cycle ends where it starts: " << line;
  return names;
}

TEST_P(AwaitCycles, ListedOnceAsTheTruthHasThem) {
  const json& truth = scenario_->truth();
  std::vector<std::vector<std::string>> expected = truth.at("cycles");
  ASSERT_EQ(expected.size(), 2u) << truth.dump(1);
  RunResult run =
      RunDebugger(GetParam().debugger, *install_, target_, {"py-tasks --json", "py-tasks --tree"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got) << error << "\n" << run.Describe();

  // JSON: the cycles, each task with its id.
  std::vector<std::vector<std::string>> listed;
  for (const json& cycle : got->at("await_cycles")) {
    std::vector<std::string> names;
    for (const json& task : cycle) {
      const std::string name = task.at("name");
      names.push_back(name);
      EXPECT_EQ(task.at("id"), truth.at("tasks").at(name).at("id")) << task.dump();
    }
    listed.push_back(FromLeast(names));
  }
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, expected) << got->at("await_cycles").dump();

  // Text: the count, then each cycle once, above the tree.
  const std::vector<std::string> counts =
      LinesContaining(run.out, "the await graph contains 2 cycles (each task awaits the next):");
  EXPECT_EQ(counts.size(), 1u) << run.out;
  std::vector<std::vector<std::string>> drawn;
  for (const std::string& line : LinesContaining(run.out, "cycle: ")) {
    if (line.rfind("cycle: ", 0) == 0) drawn.push_back(FromLeast(CycleOfLine(line)));
  }
  std::sort(drawn.begin(), drawn.end());
  EXPECT_EQ(drawn, expected) << run.out;
  const size_t first_cycle = run.out.find("\ncycle: ");
  const size_t tree = run.out.find("(T) ");
  EXPECT_LT(first_cycle, tree) << run.out;
  for (const auto& [name, task] : truth.at("tasks").items()) {
    EXPECT_NE(run.out.find("(T) " + name + " [" + task.at("id").get<std::string>() + "]"),
              std::string::npos)
        << name << "\n" << run.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Cycles, AwaitCycles, ::testing::ValuesIn(MatrixCells({"debian_3.11"})),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e

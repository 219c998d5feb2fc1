// Live 3.14 and 3.15 for the README's support matrix: Debian unstable's interpreters as
// .ci/fetch-pythons unpacks them (static, non-PIE, stripped) running threads.py;
// `py-bt --all --json` must match the scenario's truth live in LLDB and in GDB. A version
// that is not unpacked is skipped, with the reason. Their gcore cores are not checked here:
// GDB 13 cannot save the thread stacks of a process on glibc 2.41+ on Linux 6.13+ (guard
// pages it cannot read), see kCoreIncomplete.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

struct Cell {
  std::string minor;  // "3.14"
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << "Debian unstable " << c.minor << ", live, " << DebuggerName(c.debugger);
}

class SidVersions : public ::testing::TestWithParam<Cell> {
 public:
  static void TearDownTestSuite() { shared_.clear(); }  // kills and reaps the scenarios

 protected:
  static std::map<std::string, ScenarioWithCore> shared_;
};

std::map<std::string, ScenarioWithCore> SidVersions::shared_;

TEST_P(SidVersions, PyBtAllJsonMatchesTruth) {
  const Cell& cell = GetParam();
  const auto python = SidPython(cell.minor);
  if (!python) GTEST_SKIP() << "Debian unstable's Python " << cell.minor << " is not unpacked (.ci/fetch-pythons)";
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Scenario* started = shared_[cell.minor].Start(*python, "threads", &error);
  if (!started) PYU_SKIP_OR_FAIL(error);
  const std::string version = started->truth().at("python").at("version");
  ASSERT_EQ(version.rfind(cell.minor + ".", 0), 0u) << version;
  Target target;
  target.pid = started->pid();
  const std::string mismatch = PyBtAllMismatch(cell.debugger, *install, target, started->truth());
  EXPECT_TRUE(mismatch.empty()) << *python << ", pid " << started->pid() << ": " << mismatch;
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (const char* minor : {"3.14", "3.15"}) {
    for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({minor, d});
  }
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Threads, SidVersions, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName("sid_" + info.param.minor + "_live_" +
                                               DebuggerName(info.param.debugger));
                         });

}  // namespace
}  // namespace pyunwind_e2e

// 3.14 and 3.15 for the support matrix of docs/support.md: Debian unstable's interpreters as
// .ci/fetch-pythons unpacks them by hand (static, non-PIE, stripped) running threads.py;
// `py-bt --all --json` must match the scenario's truth in {LLDB, GDB} x {live, gcore core
// without the executable}. A version that is not unpacked is skipped, with the reason. (The
// scenario runs with glibc's MADV_GUARD_INSTALL refused, so that gcore saves every thread
// stack: ProcessOptions::refuse_guard_madvise.)
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
  bool live = true;
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << "Debian unstable " << c.minor << ", " << (c.live ? "live" : "core without executable")
      << ", " << DebuggerName(c.debugger);
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
  ScenarioWithCore& shared = shared_[cell.minor];
  const Scenario* started = shared.Start(*python, "threads", &error);
  if (!started) PYU_SKIP_OR_FAIL(error);
  const std::string version = started->truth().at("python").at("version");
  ASSERT_EQ(version.rfind(cell.minor + ".", 0), 0u) << version;
  Target target;
  if (cell.live) {
    target.pid = started->pid();
  } else {
    target.core = shared.Core(SanitizeName("threads_sid_" + cell.minor), &error);
    if (target.core.empty() && error.rfind(kCoreIncomplete, 0) == 0) GTEST_SKIP() << error;
    ASSERT_FALSE(target.core.empty()) << error;  // no executable: the core alone
  }
  const std::string mismatch = PyBtAllMismatch(cell.debugger, *install, target, started->truth());
  EXPECT_TRUE(mismatch.empty()) << *python << ", pid " << started->pid() << ": " << mismatch;
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (const char* minor : {"3.14", "3.15"}) {
    for (bool live : {true, false}) {
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({minor, live, d});
    }
  }
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Threads, SidVersions, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName("sid_" + info.param.minor + "_" +
                                               (info.param.live ? "live" : "core_no_exe") + "_" +
                                               DebuggerName(info.param.debugger));
                         });

}  // namespace
}  // namespace pyunwind_e2e

// 3.14 and 3.15 for the support matrix of docs/support.md: Debian unstable's interpreters as
// .ci/fetch-pythons unpacks them by hand (static, non-PIE, stripped) running threads.py, and the
// free-threaded 3.13t and 3.14t it builds by hand from Debian's source (--disable-gil; not on
// CI); `py-bt --all --json` must match the scenario's truth in {LLDB, GDB} x {live, gcore core
// without the executable}. A version that is not there is skipped, with the reason. (The
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
  std::string interp;  // as InterpreterPath() names it: "sid_3.14", "built_3.13t"
  std::string minor;   // "3.14"
  bool free_threaded = false;
  bool live = true;
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << c.interp << ", " << (c.live ? "live" : "core without executable")
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
  const std::string not_on_ci = InterpreterNotUsedOnCi(cell.interp);
  if (!not_on_ci.empty()) GTEST_SKIP() << not_on_ci;
  const auto python = InterpreterPath(cell.interp);
  if (!python) GTEST_SKIP() << cell.interp << " is not there (.ci/fetch-pythons)";
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  ScenarioWithCore& shared = shared_[cell.interp];
  const Scenario* started = shared.Start(*python, "threads", &error);
  if (!started) PYU_SKIP_OR_FAIL(error);
  const std::string version = started->truth().at("python").at("version");
  ASSERT_EQ(version.rfind(cell.minor + ".", 0), 0u) << version;
  ASSERT_EQ(started->truth().at("python").at("free_threaded"), cell.free_threaded)
      << started->truth().at("python").dump();
  Target target;
  if (cell.live) {
    target.pid = started->pid();
  } else {
    target.core = shared.Core(SanitizeName("threads_" + cell.interp), &error);
    if (target.core.empty() && error.rfind(kCoreIncomplete, 0) == 0) GTEST_SKIP() << error;
    ASSERT_FALSE(target.core.empty()) << error;  // no executable: the core alone
  }
  const std::string mismatch = PyBtAllMismatch(cell.debugger, *install, target, started->truth());
  EXPECT_TRUE(mismatch.empty()) << *python << ", pid " << started->pid() << ": " << mismatch;
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  const struct {
    const char* interp;
    const char* minor;
    bool free_threaded;
  } interpreters[] = {{"sid_3.14", "3.14", false},
                      {"sid_3.15", "3.15", false},
                      {"built_3.13t", "3.13", true},
                      {"built_3.14t", "3.14", true}};
  for (const auto& python : interpreters) {
    for (bool live : {true, false}) {
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) {
        cells.push_back({python.interp, python.minor, python.free_threaded, live, d});
      }
    }
  }
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Threads, SidVersions, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName(info.param.interp + "_" +
                                               (info.param.live ? "live" : "core_no_exe") + "_" +
                                               DebuggerName(info.param.debugger));
                         });

}  // namespace
}  // namespace pyunwind_e2e

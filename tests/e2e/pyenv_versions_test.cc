// Other CPython versions these machines happen to have, as extra evidence for the
// support matrix of docs/support.md: pyenv's 3.12.1 and 3.13.0 (shared libpython, PIE) running threads.py.
// `py-bt --all --json` must match the scenario's truth in {LLDB, GDB} x {live, gcore core
// without the executable}. A version that is not installed is skipped, with the reason.
// One scenario process (and one core) per version serves all its cells.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

struct Cell {
  std::string version;  // "3.12.1"
  bool live = true;
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << "pyenv " << c.version << ", " << (c.live ? "live" : "core without executable") << ", "
      << DebuggerName(c.debugger);
}

class PyenvVersions : public ::testing::TestWithParam<Cell> {
 public:
  static void TearDownTestSuite() { shared_.clear(); }  // kills and reaps the scenarios

 protected:
  static std::map<std::string, ScenarioWithCore> shared_;
};

std::map<std::string, ScenarioWithCore> PyenvVersions::shared_;

TEST_P(PyenvVersions, PyBtAllJsonMatchesTruth) {
  const Cell& cell = GetParam();
  const auto python = PyenvPython(cell.version);
  if (!python) {
    GTEST_SKIP() << "pyenv's Python " << cell.version
                 << " is not installed ($PYENV_ROOT, /root/.pyenv, ~/.pyenv)";
  }
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  ScenarioWithCore& shared = shared_[cell.version];
  const Scenario* started = shared.Start(*python, "threads", &error);
  if (!started) PYU_SKIP_OR_FAIL(error);
  const Scenario& scenario = *started;
  ASSERT_EQ(scenario.truth().at("python").at("version"), cell.version);

  Target target;
  if (cell.live) {
    target.pid = scenario.pid();
  } else {
    target.core = shared.Core(SanitizeName("threads_pyenv_" + cell.version), &error);
    ASSERT_FALSE(target.core.empty()) << error;  // no executable: the core alone
  }
  const std::string mismatch = PyBtAllMismatch(cell.debugger, *install, target, scenario.truth());
  EXPECT_TRUE(mismatch.empty()) << *python << ", pid " << scenario.pid() << ": " << mismatch;

  // The main thread is the one the truth names, read from what the runtime records
  // (3.13: interp->threads.main checked against _PyRuntime.main_thread), and -v says so.
  RunResult r = RunDebugger(cell.debugger, *install, target, {"py-bt --all --json -v"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  auto got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.Describe();
  std::set<uint64_t> want_main, got_main;
  for (const json& t : scenario.truth().at("threads")) {
    if (t.at("is_main") == true) want_main.insert(t.at("native_id").get<uint64_t>());
  }
  for (const json& interp : got->at("interpreters")) {
    for (const json& t : interp.at("threads")) {
      if (t.at("is_main") == true) got_main.insert(t.at("native_id").get<uint64_t>());
    }
  }
  EXPECT_EQ(want_main.size(), 1u);
  EXPECT_EQ(got_main, want_main) << r.Describe();
  const std::string source = cell.version == "3.12.1"
      ? "interpreter 0: main thread from _PyRuntime.main_thread (table)"
      : "interpreter 0: main thread from interp->threads.main (table), agreeing with "
        "_PyRuntime.main_thread";
  EXPECT_NE(std::find(got->at("warnings").begin(), got->at("warnings").end(), json(source)),
            got->at("warnings").end()) << got->at("warnings").dump();
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (const char* version : {"3.12.1", "3.13.0"})
    for (bool live : {true, false})
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({version, live, d});
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Threads, PyenvVersions, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName("pyenv_" + info.param.version + "_" +
                                               (info.param.live ? "live" : "core_no_exe") + "_" +
                                               DebuggerName(info.param.debugger));
                         });

}  // namespace
}  // namespace pyunwind_e2e

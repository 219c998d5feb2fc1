// The 3.11 matrix: `py-bt --all --json` on threads.py must show exactly what the scenario's
// truth says, in {LLDB, GDB} x {Debian 3.11, Debian's debug build 3.11d (python3.11-dbg),
// pyenv 3.11.7} x {live, core with executable, core without executable}. Each cell is its own test case. One scenario process per
// interpreter serves all its cells (and its core is made once, with gcore).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

enum class Interp { kDebian, kDebianDebug, kPyenv };
enum class Mode { kLive, kCoreWithExe, kCoreNoExe };

struct Cell {
  Debugger debugger;
  Interp interp;
  Mode mode;
};

const char* InterpName(Interp i) {
  switch (i) {
    case Interp::kDebian: return "debian_3_11";
    case Interp::kDebianDebug: return "debian_3_11d";
    case Interp::kPyenv: return "pyenv_3_11_7";
  }
  return "?";
}

// Debian's debug build (package python3.11-dbg): Py_DEBUG, Py_REF_DEBUG, no Py_TRACE_REFS.
constexpr const char* kDebianDebugPython = "/usr/bin/python3.11d";
const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kLive: return "live";
    case Mode::kCoreWithExe: return "core_with_exe";
    case Mode::kCoreNoExe: return "core_no_exe";
  }
  return "?";
}

void PrintTo(const Cell& c, std::ostream* os) {
  *os << DebuggerName(c.debugger) << ", " << InterpName(c.interp) << ", " << ModeName(c.mode);
}

constexpr const char* kPyenvVersion = "3.11.7";

class Py311Matrix : public ::testing::TestWithParam<Cell> {
 public:
  static void TearDownTestSuite() { shared_.clear(); }  // kills and reaps the scenarios

 protected:
  static std::map<Interp, ScenarioWithCore> shared_;
};

std::map<Interp, ScenarioWithCore> Py311Matrix::shared_;

TEST_P(Py311Matrix, PyBtAllJsonMatchesTruth) {
  const Cell& cell = GetParam();

  std::string python = kDebianPython;
  if (cell.interp == Interp::kDebianDebug) {
    if (!FileExists(kDebianDebugPython)) {
      GTEST_SKIP() << kDebianDebugPython << " is not installed (package python3.11-dbg)";
    }
    python = kDebianDebugPython;
  }
  if (cell.interp == Interp::kPyenv) {
    auto pyenv = PyenvPython(kPyenvVersion);
    if (!pyenv) {
      GTEST_SKIP() << "pyenv's Python " << kPyenvVersion
                   << " is not installed ($PYENV_ROOT, /root/.pyenv, ~/.pyenv)";
    }
    python = *pyenv;
  }

  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  ScenarioWithCore& shared = shared_[cell.interp];
  const Scenario* started = shared.Start(python, "threads", &error);
  if (!started) PYU_SKIP_OR_FAIL(error);
  const Scenario& scenario = *started;
  ASSERT_EQ(scenario.truth().at("python").at("executable"), python);

  Target target;
  if (cell.mode == Mode::kLive) {
    target.pid = scenario.pid();
  } else {
    target.core = shared.Core(std::string("threads-") + InterpName(cell.interp), &error);
    ASSERT_FALSE(target.core.empty()) << error;
    if (cell.mode == Mode::kCoreWithExe) target.executable = python;
  }

  std::string mismatch = PyBtAllMismatch(cell.debugger, *install, target, scenario.truth());
  EXPECT_TRUE(mismatch.empty()) << scenario.python() << ", pid " << scenario.pid() << ": "
                                << mismatch;
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (Interp i : {Interp::kDebian, Interp::kDebianDebug, Interp::kPyenv})
    for (Mode m : {Mode::kLive, Mode::kCoreWithExe, Mode::kCoreNoExe})
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({d, i, m});
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Threads, Py311Matrix, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return std::string(DebuggerName(info.param.debugger)) + "_" +
                                  InterpName(info.param.interp) + "_" +
                                  ModeName(info.param.mode);
                         });

}  // namespace
}  // namespace pyunwind_e2e

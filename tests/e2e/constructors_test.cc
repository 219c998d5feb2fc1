// Issue 12, part 1: frames no traceback shows never appear. tests/data/constructors.py parks
// threads inside Python class constructors called from Python (a plain class, a constructor
// inside a constructor, super().__init__, socketserver's finish_request -> RequestHandlerClass
// chain). From 3.13 on each such call pushes CPython's init-cleanup shim frame (_Py_InitCleanup:
// file and name "__init__", no line) between __init__ and its caller; sys._current_frames()
// and tracebacks leave it out (_PyFrame_IsIncomplete: its _co_firsttraceable is 4, and it
// waits at instruction 0). `py-bt --all --json` must show exactly the truth's frames, with no
// extra frame, in {LLDB, GDB} x {live, gcore core without the executable} on every interpreter
// present: Debian's 3.11 and its debug build 3.11d, pyenv's 3.11.7, 3.12.1 and 3.13.0. One
// scenario process (and one core) per interpreter serves all its cells; an interpreter that is
// not installed is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

struct Cell {
  std::string interp;  // "debian_3.11", "debian_3.11d" or a pyenv version
  bool live = true;
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const Cell& c, std::ostream* os) {
  *os << c.interp << ", " << (c.live ? "live" : "core without executable") << ", "
      << DebuggerName(c.debugger);
}

// One scenario process (and its core) per interpreter, for every case of both suites.
std::map<std::string, ScenarioWithCore>& Shared() {
  static std::map<std::string, ScenarioWithCore> shared;
  return shared;
}

// The scenario under `interp`, started on first use; nullptr with *skip (not installed) or
// *error set when it cannot be.
const Scenario* StartScenario(const std::string& interp, std::string* skip, std::string* error) {
  const auto python = InterpreterPath(interp);
  if (!python) {
    *skip = "the interpreter " + interp + " is not installed";
    return nullptr;
  }
  return Shared()[interp].StartScript(*python, ProjectFile("tests/data/constructors.py"), error);
}

class Constructors : public ::testing::TestWithParam<Cell> {};

bool AtLeast313(const json& truth) {
  return truth.at("python").at("hexversion").get<int64_t>() >= 0x030D0000;
}

TEST_P(Constructors, PyBtAllJsonMatchesTruth) {
  const Cell& cell = GetParam();
  std::string skip, error;
  const Scenario* scenario = StartScenario(cell.interp, &skip, &error);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_NE(scenario, nullptr) << error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  const json& truth = scenario->truth();
  // Five parked threads and the main thread; no frame named like the shim in the truth.
  ASSERT_EQ(truth.at("threads").size(), 5u) << truth.dump(1);
  for (const auto& t : truth.at("threads")) {
    for (const auto& f : t.at("frames")) {
      ASSERT_NE(f.at("filename"), "__init__") << "the truth itself shows the shim: " << t.dump(1);
    }
  }
  Target target;
  if (cell.live) {
    target.pid = scenario->pid();
  } else {
    target.core = Shared()[cell.interp].Core(SanitizeName("constructors_" + cell.interp), &error);
    ASSERT_FALSE(target.core.empty()) << error;  // no executable: the core alone
  }
  const std::string mismatch = PyBtAllMismatch(cell.debugger, *install, target, truth);
  EXPECT_TRUE(mismatch.empty()) << scenario->python() << ", pid " << scenario->pid() << ": "
                                << mismatch;
}

// The scenario tests what it claims: from 3.13 on, every class call a parked thread is inside
// is specialized to CALL_ALLOC_AND_ENTER_INIT, the instruction that pushes the shim frame
// (so the process does have shim frames in its chains); before 3.13 there is no such shim.
// Runs after Constructors (file order), on the same scenario processes.
class ClassCalls : public ::testing::TestWithParam<std::string> {
 public:
  static void TearDownTestSuite() { Shared().clear(); }  // kills and reaps the scenarios
};

TEST_P(ClassCalls, PushTheShimFrom313) {
  std::string skip, error;
  const Scenario* scenario = StartScenario(GetParam(), &skip, &error);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_NE(scenario, nullptr) << error;
  const json& truth = scenario->truth();
  const json& calls = truth.at("class_calls");
  ASSERT_EQ(calls.size(), 5u) << calls.dump();
  for (const auto& [site, ops] : calls.items()) {
    const bool shim = std::find(ops.begin(), ops.end(), "CALL_ALLOC_AND_ENTER_INIT") != ops.end();
    EXPECT_EQ(shim, AtLeast313(truth)) << truth.at("python").at("version") << " " << site << ": "
                                       << ops.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Interpreters, ClassCalls,
                         ::testing::Values("debian_3.11", "debian_3.11d", "3.11.7", "3.12.1", "3.13.0"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return SanitizeName(info.param);
                         });

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (const char* interp : {"debian_3.11", "debian_3.11d", "3.11.7", "3.12.1", "3.13.0"})
    for (bool live : {true, false})
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({interp, live, d});
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Interpreters, Constructors, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName(info.param.interp + "_" +
                                               (info.param.live ? "live" : "core_no_exe") + "_" +
                                               DebuggerName(info.param.debugger));
                         });

}  // namespace
}  // namespace pyunwind_e2e

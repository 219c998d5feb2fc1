// Frames no traceback shows never appear. tests/data/constructors.py parks
// threads inside Python class constructors called from Python (a plain class, a constructor
// inside a constructor, super().__init__, socketserver's finish_request -> RequestHandlerClass
// chain). From 3.13 on each such call pushes CPython's init-cleanup shim frame (_Py_InitCleanup:
// file and name "__init__", no line) between __init__ and its caller; sys._current_frames()
// and tracebacks leave it out (_PyFrame_IsIncomplete: its _co_firsttraceable is 4, and it
// waits at instruction 0). `py-bt --all --json` must show exactly the truth's frames, with no
// extra frame, in {LLDB, GDB} x {live, gcore core without the executable} on every interpreter
// present: Debian's 3.11 and its debug build 3.11d, pyenv's 3.11.7, 3.12.1 and 3.13.0, Debian
// unstable's 3.14 and 3.15, the free-threaded 3.13t (built from Debian's source; not on CI). One
// scenario process (and one core) per interpreter serves all its cells; an interpreter that is
// not installed is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

constexpr char kScript[] = "tests/data/constructors.py";

// The core alone, without its executable.
class Constructors : public ScenarioMatrixTest {
 public:
  static void TearDownTestSuite() {}  // ClassCalls runs next on the same scenarios, then ends them

 protected:
  void SetUp() override { Start(kScript); }
};

bool AtLeast313(const json& truth) {
  return truth.at("python").at("hexversion").get<int64_t>() >= 0x030D0000;
}

TEST_P(Constructors, PyBtAllJsonMatchesTruth) {
  const json& truth = scenario_->truth();
  // Five parked threads and the main thread; no frame named like the shim in the truth.
  ASSERT_EQ(truth.at("threads").size(), 5u) << truth.dump(1);
  for (const auto& t : truth.at("threads")) {
    for (const auto& f : t.at("frames")) {
      ASSERT_NE(f.at("filename"), "__init__") << "the truth itself shows the shim: " << t.dump(1);
    }
  }
  const std::string mismatch = PyBtAllMismatch(GetParam().debugger, *install_, target_, truth);
  EXPECT_TRUE(mismatch.empty()) << scenario_->python() << ", pid " << scenario_->pid() << ": "
                                << mismatch;
}

// The scenario tests what it claims: from 3.13 on, every class call a parked thread is inside
// is specialized to CALL_ALLOC_AND_ENTER_INIT, the instruction that pushes the shim frame
// (so the process does have shim frames in its chains); before 3.13 there is no such shim.
// Runs after Constructors (file order), on the same scenario processes.
class ClassCalls : public ::testing::TestWithParam<std::string> {
 public:
  static void TearDownTestSuite() { ScenarioMatrixTest::TearDownTestSuite(); }
};

TEST_P(ClassCalls, PushTheShimFrom313) {
  std::string skip, error;
  const Scenario* scenario = MatrixScenario(GetParam(), kScript, &skip, &error);
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

INSTANTIATE_TEST_SUITE_P(
    Interpreters, Constructors,
    ::testing::ValuesIn(MatrixCells({"debian_3.11", "debian_3.11d", "3.11.7", "3.12.1", "3.13.0",
                                      "sid_3.14", "sid_3.15", "built_3.13t"})),
    MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e

// The matrix most end-to-end tests run: one scenario script of this project under each
// interpreter installed here, inspected live and from a gcore core of the same process, in
// LLDB and in GDB; each scenario process (and its core) is made once per test binary.
#ifndef PYUNWIND_TESTS_E2E_SCENARIO_MATRIX_H_
#define PYUNWIND_TESTS_E2E_SCENARIO_MATRIX_H_

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {

struct MatrixCell {
  std::string interp;  // as InterpreterPath() names it: "debian_3.11", "debian_3.11d", "3.12.1"
  bool live = true;    // the live process, or a gcore core of it
  Debugger debugger = Debugger::kLldb;
  bool with_executable = false;  // a core opened with the interpreter as its executable
};

void PrintTo(const MatrixCell& cell, std::ostream* os);

// How the cores of a matrix are opened: alone (as users often have them), with the
// interpreter as their executable, or both ways.
enum class Cores { kAlone, kWithExecutable, kBoth };

// Every (interpreter, live or core, debugger) cell over `interps`.
std::vector<MatrixCell> MatrixCells(const std::vector<std::string>& interps,
                                    Cores cores = Cores::kAlone);

// A test name: "<interp>_<live|core_alone|core_with_exe>_<debugger>".
std::string MatrixCellName(const ::testing::TestParamInfo<MatrixCell>& info);

// `script` (a path under the project) running under `interp`, started on its first use in
// this binary; nullptr with *skip set when the interpreter is not installed, or with *error
// set when the scenario cannot be started.
const Scenario* MatrixScenario(const std::string& interp, const std::string& script,
                               std::string* skip, std::string* error);

// A suite over MatrixCells. Its SetUp calls Start(script); the tests then use install_,
// scenario_ and target_. The scenario processes and cores live until the suite ends.
class ScenarioMatrixTest : public ::testing::TestWithParam<MatrixCell> {
 public:
  static void TearDownTestSuite();  // kills and reaps the scenario processes

 protected:
  // Skips the test when the cell's interpreter is not installed; fails it when the install,
  // the scenario or the core cannot be had.
  void Start(const std::string& script);

  const Install* install_ = nullptr;
  const Scenario* scenario_ = nullptr;
  Target target_;
};

}  // namespace pyunwind_e2e

#endif  // PYUNWIND_TESTS_E2E_SCENARIO_MATRIX_H_

#include "tests/e2e/scenario_matrix.h"

#include <filesystem>
#include <map>
#include <optional>
#include <utility>

namespace pyunwind_e2e {
namespace {

// (script, interpreter) -> its process and core, for the whole test binary.
std::map<std::pair<std::string, std::string>, ScenarioWithCore>& Scenarios() {
  static std::map<std::pair<std::string, std::string>, ScenarioWithCore> scenarios;
  return scenarios;
}

}  // namespace

void PrintTo(const MatrixCell& cell, std::ostream* os) {
  *os << cell.interp << ", " << (cell.live ? "live" : "gcore core") << ", "
      << DebuggerName(cell.debugger);
}

std::vector<MatrixCell> MatrixCells(const std::vector<std::string>& interps) {
  std::vector<MatrixCell> cells;
  for (const std::string& interp : interps)
    for (bool live : {true, false})
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({interp, live, d});
  return cells;
}

std::string MatrixCellName(const MatrixCell& cell, const std::string& core_label) {
  return SanitizeName(cell.interp + "_" + (cell.live ? "live" : core_label) + "_" +
                      DebuggerName(cell.debugger));
}

const Scenario* MatrixScenario(const std::string& interp, const std::string& script,
                               std::string* skip, std::string* error) {
  const std::optional<std::string> python = InterpreterPath(interp);
  if (!python) {
    *skip = "the interpreter " + interp + " is not installed";
    return nullptr;
  }
  return Scenarios()[{script, interp}].StartScript(*python, ProjectFile(script), error);
}

void ScenarioMatrixTest::TearDownTestSuite() { Scenarios().clear(); }

void ScenarioMatrixTest::Start(const std::string& script, bool core_with_executable) {
  const MatrixCell& cell = GetParam();
  std::string skip, error;
  scenario_ = MatrixScenario(cell.interp, script, &skip, &error);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_NE(scenario_, nullptr) << error;
  install_ = Installed(&error);
  ASSERT_NE(install_, nullptr) << error;
  if (cell.live) {
    target_.pid = scenario_->pid();
    return;
  }
  const std::string stem = std::filesystem::path(script).stem().string();
  target_.core = Scenarios()[{script, cell.interp}].Core(SanitizeName(stem + "_" + cell.interp), &error);
  ASSERT_FALSE(target_.core.empty()) << error;
  if (core_with_executable) target_.executable = scenario_->python();
}

}  // namespace pyunwind_e2e

#include "tests/e2e/scenario_matrix.h"

#include <cstring>
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

namespace {

const char* TargetKind(const MatrixCell& cell) {
  return cell.live ? "live" : cell.with_executable ? "core_with_exe" : "core_alone";
}

}  // namespace

void PrintTo(const MatrixCell& cell, std::ostream* os) {
  *os << cell.interp << ", " << TargetKind(cell) << ", " << DebuggerName(cell.debugger);
}

std::vector<MatrixCell> MatrixCells(const std::vector<std::string>& interps, Cores cores) {
  std::vector<MatrixCell> cells;
  for (const std::string& interp : interps) {
    for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) {
      cells.push_back({interp, true, d});
      if (cores != Cores::kWithExecutable) cells.push_back({interp, false, d, false});
      if (cores != Cores::kAlone) cells.push_back({interp, false, d, true});
    }
  }
  return cells;
}

std::string MatrixCellName(const ::testing::TestParamInfo<MatrixCell>& info) {
  return SanitizeName(info.param.interp + "_" + TargetKind(info.param) + "_" +
                      DebuggerName(info.param.debugger));
}

const Scenario* MatrixScenario(const std::string& interp, const std::string& script,
                               std::string* skip, std::string* error) {
  *skip = InterpreterNotUsedOnCi(interp);
  if (!skip->empty()) return nullptr;
  const std::optional<std::string> python = InterpreterPath(interp);
  if (!python) {
    *skip = "the interpreter " + interp + " is not installed" +
            (interp.rfind("sid_", 0) == 0 || interp == kTrixieInterp
                 ? " (.ci/fetch-pythons unpacks it)"
             : interp.rfind(kBuiltPrefix, 0) == 0
                 ? " (.ci/fetch-pythons " + interp.substr(std::strlen(kBuiltPrefix)) + " builds it)"
                 : "");
    return nullptr;
  }
  return Scenarios()[{script, interp}].StartScript(*python, ProjectFile(script), error);
}

void ScenarioMatrixTest::TearDownTestSuite() { Scenarios().clear(); }

void ScenarioMatrixTest::Start(const std::string& script) {
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
  if (target_.core.empty() && error.rfind(kCoreIncomplete, 0) == 0) GTEST_SKIP() << error;
  ASSERT_FALSE(target_.core.empty()) << error;
  if (cell.with_executable) target_.executable = scenario_->python();
}

}  // namespace pyunwind_e2e

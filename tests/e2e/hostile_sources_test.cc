// Code objects that name files a debugger must not show (core/pysource/source_policy.h):
// tests/data/hostile_source_names.py parks a thread in code whose file is
// '/proc/self/environ' and one in 'secret.py', with a working directory of its own that has no
// such file, while the debugger's working directory holds a secret.py. In LLDB and GDB, live and
// from a gcore core: no byte of the secret, nor of the debugger's environment, appears in
// `py-bt --all` (plain, -v, --json --source) or `py-list` of every thread; `py-bt -v` counts the
// refused name once.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

constexpr const char* kSecret = "xyzzy-SECRET-7d1f";

class HostileSources : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/hostile_source_names.py"); }
};

TEST_P(HostileSources, NoByteOfTheNamedFilesIsShown) {
  const MatrixCell& cell = GetParam();
  const std::string dir = TempDir() + "/hostile-debugger-cwd";
  mkdir(dir.c_str(), 0755);
  {
    std::ofstream out(dir + "/secret.py");
    for (int i = 1; i <= 30; ++i) out << "TOKEN_" << i << " = '" << kSecret << "'\n";
  }
  ASSERT_EQ(chdir(dir.c_str()), 0);  // the debugger runs here

  std::vector<std::string> commands = {"py-bt --all", "py-bt --all -v",
                                       "py-bt --all --json --source"};
  for (int thread = 1; thread <= 3; ++thread) {
    commands.push_back(cell.debugger == Debugger::kLldb
                           ? "thread select " + std::to_string(thread)
                           : "thread " + std::to_string(thread));
    commands.push_back("py-list");
  }
  const RunResult run = RunDebugger(cell.debugger, *install_, target_, commands);
  ASSERT_TRUE(run.exited) << run.Describe();
  const std::string all = run.out + run.err;
  EXPECT_EQ(all.find(kSecret), std::string::npos) << run.Describe();
  EXPECT_EQ(all.find("TOKEN_"), std::string::npos) << run.Describe();
  EXPECT_EQ(all.find("PATH=/"), std::string::npos) << run.Describe();
  // The frames are there, without their source.
  EXPECT_NE(all.find("File \"/proc/self/environ\", line 4, in park"), std::string::npos)
      << run.Describe();
  EXPECT_NE(all.find("File \"secret.py\", line 4, in park"), std::string::npos) << run.Describe();
  // -v says once which names were refused: '/proc/self/environ' for its name, and in a core
  // 'secret.py' for being relative (live, it is looked up in the process's own, empty, cwd).
  const std::string note = "source files not read (docs/commands.md, \"Which files are read\"): 1 ";
  EXPECT_EQ(Occurrences(all, note), 1u) << run.Describe();
  EXPECT_NE(all.find(cell.live ? note + "not named *.py or *.pyw\n"
                               : note + "not named *.py or *.pyw, 1 a relative name and no live "
                                        "process to resolve it in\n"),
            std::string::npos)
      << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(Interpreters, HostileSources,
                         ::testing::ValuesIn(MatrixCells({"debian_3.11"})), MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e

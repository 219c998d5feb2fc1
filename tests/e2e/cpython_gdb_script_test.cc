// CPython's own GDB script (python3.11-gdb.py, package python3.11-dbg), auto-loaded for
// /usr/bin/python3.11, against pyunwind loaded from an init file: `gdb -p PID` runs that
// script after every init file, and the plain names (py-bt, ...) must stay pyunwind's
// (docs/commands.md, "Loading"); with PYUNWIND_GDB_PREFIX_ONLY=1 they are CPython's, and
// CPython's pretty-printers are there either way. Live tests/data/locals.py, GDB only.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

constexpr const char* kCpythonScript = "/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py";
// What CPython's py-bt prints for the main thread parked in time.sleep, and pyunwind's never.
constexpr const char* kCpythonOnly = "<built-in method sleep of module object at remote 0x";

class CpythonGdbScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!FileExists(kCpythonScript)) {
      GTEST_SKIP() << "no " << kCpythonScript << " (python3.11-dbg): nothing takes py-bt from pyunwind";
    }
    std::string error;
    install_ = Installed(&error);
    ASSERT_NE(install_, nullptr) << error;
    if (!scenario_) scenario_ = Scenario::Start(kDebianPython, "locals", &error);
    ASSERT_NE(scenario_, nullptr) << error;
  }
  static void TearDownTestSuite() { scenario_.reset(); }

  // `gdb -batch [-nx] -iex ... -p PID -ex ...` with the environment given: the -iex commands
  // run where the init files do, before GDB attaches and auto-loads CPython's script.
  RunResult Gdb(const std::vector<std::string>& init, const std::vector<std::string>& commands,
                const std::map<std::string, std::string>& env_extra = {}, bool nx = true) {
    std::vector<std::string> argv = {"gdb", "-batch"};
    if (nx) argv.push_back("-nx");
    for (const auto& c : init) argv.insert(argv.end(), {"-iex", c});
    argv.insert(argv.end(), {"-p", std::to_string(scenario_->pid())});
    for (const auto& c : commands) argv.insert(argv.end(), {"-ex", c});
    auto env = DebuggerEnv();
    for (const auto& [k, v] : env_extra) env[k] = v;
    return RunCommand(argv, 180, env);
  }

  // pyunwind's traceback of the main thread: its header and its innermost frame's line.
  ::testing::AssertionResult ShowsPyunwindsPyBt(const RunResult& r) {
    const json* main = nullptr;
    for (const json& t : scenario_->truth().at("threads")) {
      if (t.at("is_main") == true) main = &t;
    }
    if (!main) return ::testing::AssertionFailure() << "no main thread in the truth";
    const json& f = main->at("frames").at(0);
    const std::string frame = "  File \"" + f.at("filename").get<std::string>() + "\", line " +
                              std::to_string(f.at("line").get<int>()) + ", in " +
                              f.at("name").get<std::string>() + "\n";
    const std::string header = "Thread " + std::to_string(main->at("native_id").get<int>()) + " ";
    if (r.out.find(header) == std::string::npos || r.out.find(frame) == std::string::npos) {
      return ::testing::AssertionFailure() << "no pyunwind traceback (" << header << "..., " << frame
                                           << ")\n" << r.Describe();
    }
    return ::testing::AssertionSuccess();
  }

  const Install* install_ = nullptr;
  static std::unique_ptr<Scenario> scenario_;
};

std::unique_ptr<Scenario> CpythonGdbScript::scenario_;

TEST_F(CpythonGdbScript, PlainPyBtStaysPyunwindsWhenLoadedBeforeAttach) {
  RunResult r = Gdb({"source " + install_->gdb_script}, {"py-bt"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_TRUE(ShowsPyunwindsPyBt(r));
  EXPECT_EQ(r.out.find(kCpythonOnly), std::string::npos) << "CPython's py-bt ran\n" << r.Describe();
}

// The user's case: `source` in ~/.gdbinit, plain `gdb -p PID` (no -nx).
TEST_F(CpythonGdbScript, PlainPyBtStaysPyunwindsFromGdbinit) {
  const std::string home = TempDir() + "/home-gdbinit";
  ASSERT_EQ(RunCommand({"mkdir", "-p", home}, 10).exit_code, 0);
  std::ofstream(home + "/.gdbinit") << "source " << install_->gdb_script << "\n";
  RunResult r = Gdb({}, {"py-bt"}, {{"HOME", home}}, /*nx=*/false);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_TRUE(ShowsPyunwindsPyBt(r));
  EXPECT_EQ(r.out.find(kCpythonOnly), std::string::npos) << "CPython's py-bt ran\n" << r.Describe();
}

// `gdb EXE`: GDB loads CPython's script with the executable, after the init files; then
// `attach`. py-bt and every other name CPython's script defines stay pyunwind's: `help NAME`
// prints pyunwind's usage (CPython's docstrings have no "Usage:" line).
TEST_F(CpythonGdbScript, EveryPlainNameStaysPyunwindsWithGdbExe) {
  std::vector<std::string> argv = {"gdb", "-batch", "-nx", "-iex", "source " + install_->gdb_script,
                                   kDebianPython, "-ex",
                                   "attach " + std::to_string(scenario_->pid()), "-ex", "py-bt",
                                   "-ex", "info auto-load python-scripts"};
  const std::vector<std::string> names = {"py-bt", "py-list", "py-up", "py-down", "py-locals",
                                          "py-print"};
  for (const std::string& name : names) argv.insert(argv.end(), {"-ex", "help " + name});
  const RunResult r = RunCommand(argv, 180, DebuggerEnv());
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_NE(r.out.find("python3.11-gdb.py"), std::string::npos)
      << "GDB did not auto-load CPython's script (nothing to win against)\n" << r.Describe();
  EXPECT_TRUE(ShowsPyunwindsPyBt(r));
  EXPECT_EQ(r.out.find(kCpythonOnly), std::string::npos) << "CPython's py-bt ran\n" << r.Describe();
  for (const std::string& name : names) {
    EXPECT_NE(r.out.find("Usage: " + name + " "), std::string::npos)
        << "help " << name << " is not pyunwind's\n" << r.Describe();
  }
}

// PYUNWIND_GDB_PREFIX_ONLY=1: the plain names are CPython's, pyunwind's are `pyunwind ...`.
TEST_F(CpythonGdbScript, PrefixOnlyLeavesThePlainNamesToCpython) {
  RunResult r = Gdb({"source " + install_->gdb_script}, {"py-bt", "echo pyu-marker\\n", "pyunwind py-bt"},
                    {{"PYUNWIND_GDB_PREFIX_ONLY", "1"}});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  const size_t marker = r.out.find("pyu-marker\n");
  ASSERT_NE(marker, std::string::npos) << r.Describe();
  EXPECT_NE(r.out.substr(0, marker).find(kCpythonOnly), std::string::npos)
      << "CPython's py-bt did not run\n" << r.Describe();
  RunResult after = r;
  after.out = r.out.substr(marker);
  EXPECT_TRUE(ShowsPyunwindsPyBt(after));
}

// CPython's pretty-printers (for PyObject* values) are registered whatever pyunwind does.
TEST_F(CpythonGdbScript, CpythonsPrettyPrintersStay) {
  RunResult r = Gdb({"source " + install_->gdb_script}, {"info pretty-printer"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_NE(r.out.find("objfile /usr/bin/python3.11 pretty-printers:"), std::string::npos) << r.Describe();
  EXPECT_NE(r.out.find("pretty_printer_lookup"), std::string::npos) << r.Describe();
}

}  // namespace
}  // namespace pyunwind_e2e

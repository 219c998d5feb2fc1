// Ctrl-C stops a pyunwind command at the debugger's prompt, and the next command at the same
// stop reads the process anew (the interrupted one kept nothing it read half): in a terminal
// (tests/e2e/ctrl_c_driver.py), each LLDB 14..22 and GDB, connected to a server of 100,000
// asyncio tasks in a PID namespace of its own, so that every read goes through the server
// (`py-tasks --summary` takes seconds), get Ctrl-C 0.2 s into `py-tasks --summary`, then run it
// again.
//   LLDB: "... Interrupted." (LLDB's own line for a command stopped so), no summary;
//   GDB: "pyunwind: interrupted", no summary;
// and both then print the whole summary. Before, LLDB ran the command to its end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/lldb_versions.h"

namespace pyunwind_e2e {
namespace {

constexpr const char* kSummary = "100000 tasks, pending: mid -> leaf -> Event.wait";

// An LLDB major, or 0 for GDB.
class CtrlC : public ::testing::TestWithParam<int> {};

TEST_P(CtrlC, StopsTheCommandAndTheNextReadsAnew) {
  const bool lldb = GetParam() != 0;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  std::string binary = "/usr/bin/gdb";
  std::map<std::string, std::string> env = DebuggerEnv();
  if (lldb) {
    std::string why;
    const std::optional<Lldb> found = FindLldb(GetParam(), &why);
    if (!found) GTEST_SKIP() << why;
    binary = found->path;
    for (const auto& [k, v] : found->env) env[k] = v;
  }
  const std::string port = std::to_string(43000 + (getpid() * 7 + GetParam()) % 20000);
  RunResult r = RunCommand({kDebianPython, ProjectFile("tests/e2e/ctrl_c_driver.py"), binary,
                            lldb ? install->lldb_plugin : install->gdb_script, kDebianPython,
                            ProjectFile("tests/data/asyncio_many.py"), "100000", port, TempDir()},
                           600, env);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  if (r.out.rfind("skip: ", 0) == 0) GTEST_SKIP() << r.out.substr(6);
  const size_t first = r.out.find("=== first\n");
  const size_t second = r.out.find("=== second\n");
  const size_t end = r.out.find("=== end\n");
  ASSERT_TRUE(first != std::string::npos && second != std::string::npos && end != std::string::npos)
      << r.Describe();
  const std::string interrupted = r.out.substr(first, second - first);
  const std::string again = r.out.substr(second, end - second);
  EXPECT_TRUE(LinesContaining(interrupted, kSummary).empty())
      << "the command ran to its end after Ctrl-C:\n" << interrupted;
  EXPECT_FALSE(LinesContaining(interrupted, lldb ? "... Interrupted." : "pyunwind: interrupted")
                   .empty())
      << interrupted;
  EXPECT_FALSE(LinesContaining(again, kSummary).empty()) << again;
  EXPECT_FALSE(LinesContaining(again, "1 task, running: main").empty()) << again;
}

// GDB raises Ctrl-C's KeyboardInterrupt in the first Python code that runs after it; while a
// command runs in the library that is often a callback, at its first instruction, before any
// try. ctypes printed it ("Exception ignored on calling ctypes callback function"), dropped it,
// and handed the library whatever the callback's return slot held (seen: 1, which a read takes
// for "all bytes read"; a stack address for a text). gdb_ctrl_c_storm.py sends GDB SIGINT at 80
// random moments of `py-bt --all` on `scale`, once as it reads /proc/PID/mem and once with
// every read a callback (PYUNWIND_GDB_NO_PROC_MEM): before the fix 22 and 20 were lost, the
// command ran on; now none is, each stops the command (or comes before or after it).
TEST(GdbCtrlC, EveryCtrlCDuringACommandStopsIt) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto scenario = Scenario::Start(kDebianPython, "scale", &error);
  ASSERT_NE(scenario, nullptr) << error;
  const RunResult run = RunDebugger(
      Debugger::kGdb, *install, {scenario->pid(), "", ""},
      {"source " + ProjectFile("tests/e2e/gdb_ctrl_c_storm.py"),
       "python storm('pyunwind py-bt --all', 80)",
       "python import os; os.environ['PYUNWIND_GDB_NO_PROC_MEM'] = '1'",
       "python storm('pyunwind py-bt --all', 80)"},
      300);
  const std::vector<std::string> lines = LinesContaining(run.out, "STORM {");
  ASSERT_EQ(lines.size(), 2u) << run.Describe();
  for (const std::string& line : lines) {
    const json counts = json::parse(line.substr(line.find('{')));
    std::cout << "storm: " << counts.dump() << "\n";
    EXPECT_EQ(counts.value("lost", 0), 0) << counts.dump();
    EXPECT_EQ(counts.value("failed", 0), 0) << counts.dump();
    // The storm hit the library at all: most moments fall inside the command.
    EXPECT_GE(counts.value("interrupted", 0), 20) << counts.dump();
  }
}

// Every LLDB major and GDB. Under --config=asan (.ci/run's second phase) Debian's LLDB 14 and
// GDB: the plugin's interrupt path is the same code in every LLDB, and each major's run takes
// a 100,000-task scenario's start and a minute.
std::vector<int> Debuggers() {
  const char* asan_preload = std::getenv("PYUNWIND_ASAN_PRELOAD");
  std::vector<int> all =
      asan_preload && *asan_preload ? std::vector<int>{14} : TestedLldbMajors();
  all.push_back(0);
  return all;
}

INSTANTIATE_TEST_SUITE_P(Debuggers, CtrlC, ::testing::ValuesIn(Debuggers()),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == 0 ? std::string("gdb")
                                                  : "lldb" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace pyunwind_e2e

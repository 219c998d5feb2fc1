// The bad-input table of fuzz/README.md, debugger level (the core level is
// tests/bad_inputs_test.cc; no target, a non-Python process and a non-Python core
// are tests/e2e/error_paths_test.cc):
//   - a process that exits (is killed) while py-bt reads it, over and over: the
//     debugger prints tracebacks, then one error line per command, and exits
//     normally within the time bound;
//   - a running process (LLDB: `process continue` in async mode; GDB:
//     `continue &`): pyunwind refuses with "the process is running".
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

// Recursion 200 deep in the main thread and 4 more threads: a py-bt --all that
// reads a few hundred frames.
constexpr char kBusyPython[] = R"(
import threading, time
def deep(n):
    if n == 0:
        time.sleep(600)
    else:
        deep(n - 1)
for _ in range(4):
    threading.Thread(target=deep, args=(50,), daemon=True).start()
open(__import__("sys").argv[1], "w").close()
deep(200)
)";

std::unique_ptr<Process> StartBusyPython(std::string* error) {
  const std::string ready = TempDir() + "/busy_ready";
  ::unlink(ready.c_str());
  ProcessOptions options;
  options.argv = {kDebianPython, "-c", kBusyPython, ready};
  options.env = CleanEnv();
  auto process = Process::Spawn(options, error);
  if (!process) return nullptr;
  for (int i = 0; i < 300 && !FileExists(ready); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!FileExists(ready)) {
    *error = "the python process did not start";
    return nullptr;
  }
  return process;
}

void ExpectNoCrashText(const RunResult& r) {
  const std::string all = r.out + r.err;
  for (const char* bad : {"terminate called", "Segmentation fault", "AddressSanitizer",
                          "runtime error:", "PLEASE submit a bug report", "Fatal Python error"}) {
    EXPECT_EQ(all.find(bad), std::string::npos) << bad << "\n" << r.Describe();
  }
}

class ExitWhileRead : public ::testing::TestWithParam<Debugger> {};

TEST_P(ExitWhileRead, ErrorLinesThenANormalExit) {
  const Debugger d = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto python = StartBusyPython(&error);
  ASSERT_NE(python, nullptr) << error;

  Target target;
  target.pid = python->pid();
  // 150 times py-bt --all, 20 ms apart: the kill lands between or inside them.
  std::vector<std::string> commands;
  for (int i = 0; i < 150; ++i) {
    commands.push_back("py-bt --all");
    commands.push_back(d == Debugger::kLldb ? "platform shell sleep 0.02" : "shell sleep 0.02");
  }
  RunResult r;
  std::thread debugger([&] { r = RunDebugger(d, *install, target, commands, 120); });
  // Let the debugger attach and run a few commands, then kill the process under it.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  ::kill(python->pid(), SIGKILL);
  debugger.join();

  ASSERT_FALSE(r.timed_out) << r.Describe();
  // LLDB --batch stops at the first failing command (exit 1), GDB goes on (exit 0).
  EXPECT_TRUE(r.exited) << "the debugger did not exit normally\n" << r.Describe();
  ExpectNoCrashText(r);
  // Every pyunwind error is one line starting "pyunwind:".
  for (const std::string& line : LinesContaining(r.out + r.err, "pyunwind:")) {
    EXPECT_LT(line.size(), 400u) << line;
  }
}

INSTANTIATE_TEST_SUITE_P(Debuggers, ExitWhileRead,
                         ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return std::string(DebuggerName(info.param));
                         });

// LLDB runs `process continue` asynchronously only when its commands come from
// standard input (in --batch with -o it waits for the stop): a shell pipes them in.
TEST(RunningProcess, LldbRefuses) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto python = StartBusyPython(&error);
  ASSERT_NE(python, nullptr) << error;
  const std::string pid = std::to_string(python->pid());
  const std::string script = "printf '%s\\n' 'plugin load " + install->lldb_plugin +
                             "' 'process attach -p " + pid +
                             "' 'process continue' 'process status' 'py-bt --all' "
                             "'process interrupt' 'detach' 'quit'"
                             " | lldb --no-lldbinit";
  // LLDB's state changes arrive asynchronously: `process status` tells whether the
  // process was running when py-bt ran; a few tries get it there.
  for (int attempt = 0; attempt < 5; ++attempt) {
    RunResult r = RunCommand({"/bin/sh", "-c", script}, 120, DebuggerEnv());
    ASSERT_FALSE(r.timed_out) << r.Describe();
    EXPECT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
    ExpectNoCrashText(r);
    const std::string all = r.out + r.err;
    if (all.find("is running.") == std::string::npos) continue;
    auto refused = LinesContaining(all, "pyunwind: the process is running");
    EXPECT_EQ(refused.size(), 1u) << r.Describe();
    return;
  }
  GTEST_SKIP() << "LLDB never reported the process as running after `process continue`";
}

TEST(RunningProcess, GdbRefuses) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto python = StartBusyPython(&error);
  ASSERT_NE(python, nullptr) << error;
  Target target;
  target.pid = python->pid();
  RunResult r = RunDebugger(Debugger::kGdb, *install, target,
                            {"continue &", "py-bt", "py-bt --all", "py-tasks"}, 120);
  ASSERT_FALSE(r.timed_out) << r.Describe();
  EXPECT_TRUE(r.exited) << r.Describe();
  ExpectNoCrashText(r);
  auto refused = LinesContaining(r.out + r.err, "pyunwind: the process is running");
  EXPECT_EQ(refused.size(), 3u) << r.Describe();
  EXPECT_EQ((r.out + r.err).find("in deep"), std::string::npos) << r.Describe();
}

}  // namespace
}  // namespace pyunwind_e2e

// The bad-input table of fuzz/README.md, debugger level (the core level is
// tests/bad_inputs_test.cc; no target, a non-Python process and a non-Python core
// are tests/e2e/error_paths_test.cc):
//   - a process that exits (is killed) while py-bt reads it, over and over: the
//     debugger prints tracebacks, then one error line per command (`no process`
//     or the read that failed), and exits normally within the time bound;
//   - a running process (LLDB: `process continue` in async mode; GDB:
//     `continue &`): pyunwind refuses with "the process is running".
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
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

constexpr const char* kCrashTexts[] = {"terminate called", "Segmentation fault", "AddressSanitizer",
                                       "runtime error:", "PLEASE submit a bug report",
                                       "Fatal Python error"};

// Where the first crash text is in `text` (npos: none).
size_t FirstCrashText(const std::string& text) {
  size_t first = std::string::npos;
  for (const char* bad : kCrashTexts) first = std::min(first, text.find(bad));
  return first;
}

void ExpectNoCrashText(const RunResult& r) {
  const std::string all = r.out + r.err;
  for (const char* bad : kCrashTexts) {
    EXPECT_EQ(all.find(bad), std::string::npos) << bad << "\n" << r.Describe();
  }
}

// When the test fails, the whole output of every debugger run it made (Describe keeps 4,000
// bytes of each stream: a sanitizer report after 150 tracebacks was cut off): each run's
// streams go to a file of the test's undeclared outputs (bazel-testlogs/<target>/test.outputs/),
// and the log gets the part from the first crash text on (a sanitizer report whole, up to
// 64 KiB) and the last 4,000 bytes.
class FullOutputOnFailure {
 public:
  explicit FullOutputOnFailure(std::string name) : name_(std::move(name)) {}
  FullOutputOnFailure(const FullOutputOnFailure&) = delete;
  FullOutputOnFailure& operator=(const FullOutputOnFailure&) = delete;
  void Add(const RunResult& r) { runs_.push_back(r); }
  ~FullOutputOnFailure() {
    if (!::testing::Test::HasFailure()) return;
    const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    for (size_t i = 0; i < runs_.size(); ++i) {
      const RunResult& r = runs_[i];
      const std::string all = "command: " + r.command + "\nstatus: " + r.Status() +
                              "\n--- stdout:\n" + r.out + "\n--- stderr:\n" + r.err;
      std::string saved = "(no TEST_UNDECLARED_OUTPUTS_DIR)";
      if (dir != nullptr && *dir != '\0') {
        saved = std::string(dir) + "/" + name_ + "_run" + std::to_string(i + 1) + ".txt";
        std::ofstream(saved, std::ios::binary) << all;
      }
      std::string shown;
      if (const size_t crash = FirstCrashText(all); crash != std::string::npos) {
        // From the start of the line before it (ASan's "==PID==ERROR: ..." header).
        size_t from = all.rfind('\n', crash);
        from = from == std::string::npos || from == 0 ? 0 : all.rfind('\n', from - 1);
        from = from == std::string::npos ? 0 : from + 1;
        shown += "--- from the first crash text on:\n" + all.substr(from, 64 << 10) + "\n";
      }
      shown += "--- the last 4000 bytes:\n" + all.substr(all.size() - std::min<size_t>(all.size(), 4000));
      std::cerr << "=== debugger run " << (i + 1) << " of " << runs_.size() << " (" << all.size()
                << " bytes, all of it in " << saved << ")\n"
                << shown << "\n";
    }
  }

 private:
  std::string name_;
  std::vector<RunResult> runs_;
};

class ExitWhileRead : public ::testing::TestWithParam<Debugger> {};

// 'arg' for /bin/sh.
std::string ShellQuoted(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Where each main-thread header of py-bt --all starts ("Thread N ... (..., main thread, ...):").
std::vector<size_t> MainThreadHeaders(const std::string& text) {
  std::vector<size_t> at;
  for (size_t line = 0; line < text.size();) {
    size_t end = text.find('\n', line);
    if (end == std::string::npos) end = text.size();
    const std::string_view l(text.data() + line, end - line);
    if (l.rfind("Thread ", 0) == 0 && l.find("main thread") != std::string_view::npos) {
      at.push_back(line);
    }
    line = end + 1;
  }
  return at;
}

TEST_P(ExitWhileRead, TracebacksThenOneErrorLinePerCommand) {
  const Debugger d = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  // LLDB 14's `platform shell` fails once the inferior is gone ("DupDescriptor-open failed",
  // or "DupDescriptor-open" alone) and --batch stops there: when the kill lands in a shell
  // command, no py-bt ran after it and the run says nothing of pyunwind; it is run again (at
  // most 5 times).
  constexpr int kReads = 150;
  RunResult r;
  bool read_once = false;
  FullOutputOnFailure full_output(std::string("exit_while_read_") + DebuggerName(d));
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto python = StartBusyPython(&error);
    ASSERT_NE(python, nullptr) << error;
    // One py-bt --all, then a mark file the test waits for, then 150 more, 20 ms apart: the
    // kill lands after pyunwind has read the process at least once, between or inside reads.
    const std::string ready = TempDir() + "/debugger_read_once";
    ::unlink(ready.c_str());
    const std::string shell = d == Debugger::kLldb ? "platform shell " : "shell ";
    std::vector<std::string> commands = {"py-bt --all", shell + "touch " + ready};
    for (int i = 0; i < kReads; ++i) {
      commands.push_back("py-bt --all");
      commands.push_back(shell + "sleep 0.02");
    }
    Target target;
    target.pid = python->pid();
    // Both of the debugger's streams into one pipe, in the order written.
    std::string line;
    for (const std::string& arg : DebuggerArgv(d, *install, target, commands)) {
      line += ShellQuoted(arg) + " ";
    }
    std::thread debugger([&] { r = RunCommand({"/bin/sh", "-c", line + "2>&1"}, 180, DebuggerEnv()); });
    for (int i = 0; i < 1200 && !FileExists(ready); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    read_once = FileExists(ready);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::rand() % 500));
    ::kill(python->pid(), SIGKILL);
    debugger.join();
    full_output.Add(r);
    // Never run again over a crash: the sanitizer report is what the run is for.
    const bool shell_noticed_first = d == Debugger::kLldb &&
                                     LinesContaining(r.out, "pyunwind:").empty() &&
                                     r.out.find("DupDescriptor-open") != std::string::npos &&
                                     FirstCrashText(r.out + r.err) == std::string::npos;
    if (!shell_noticed_first) break;
  }
  ASSERT_TRUE(read_once) << "the debugger never got past its first py-bt\n" << r.Describe();
  ASSERT_FALSE(r.timed_out) << r.Describe();
  // LLDB --batch stops at the first failing command (exit 1), GDB goes on (exit 0).
  EXPECT_TRUE(r.exited) << "the debugger did not exit normally\n" << r.Describe();
  ExpectNoCrashText(r);

  // Each py-bt --all that ran printed the main thread's traceback (cut short with a
  // reason if the process died under it) or exactly one error line; no traceback after
  // the first error line.
  const std::string& out = r.out;
  const std::vector<size_t> headers = MainThreadHeaders(out);
  const size_t tracebacks = headers.size();
  const auto errors = LinesContaining(out, "pyunwind:");
  EXPECT_GE(tracebacks, 1u) << r.Describe();
  ASSERT_GE(errors.size(), 1u) << "the kill was never noticed\n" << r.Describe();
  EXPECT_TRUE(headers.empty() || headers.back() < out.find("pyunwind:"))
      << "a traceback after an error line\n" << r.Describe();
  for (const std::string& e : errors) {
    EXPECT_LT(e.size(), 400u) << e;
    EXPECT_TRUE(e.find("pyunwind: no process") != std::string::npos ||
                e.find("cannot read") != std::string::npos)
        << "neither 'no process' nor the read that failed: " << e;
  }
  if (d == Debugger::kGdb) {
    EXPECT_EQ(tracebacks + errors.size(), static_cast<size_t>(kReads + 1)) << r.Describe();
  } else {
    EXPECT_EQ(errors.size(), 1u) << "LLDB --batch stops at the first error\n" << r.Describe();
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

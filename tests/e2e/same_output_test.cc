// LLDB and GDB print the same thing for the same pyunwind command: one list of commands
// (stacks, JSON, frame selection, source, locals, tasks, bad options, quoted arguments) run
// in both debuggers, on one live asyncio_tree scenario and on a gcore core of it; every
// command's output and every error line must be byte-for-byte the same.
//
// What the debuggers add themselves is taken off before comparing: LLDB echoes each
// command as "(lldb) ...", and prefixes a failed command's message with "error: " (every
// failed LLDB command has it; GDB prints a command's error as it is). Errors go to stderr
// in both and are compared in order; the rest goes to stdout, cut at a marker printed
// between commands. A live sleep's time left is masked: each run reads the clock anew.
// py-heap's writable anonymous memory of the core is the same figure in both: both name the
// core's segments from its NT_FILE note (LLDB lists them unnamed; the plugin names them).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

const char* const kMarker = "pyu-same-output-marker";

// Each in both debuggers, in this order (py-up/py-down keep their selection between them).
const std::vector<std::string> kCommands = {
    "py-bt",
    "py-bt --all",
    "py-bt --all --json",
    "py-bt --json --limit 2",
    "py-up",
    "py-up",
    "py-list",
    "py-locals",
    "py-down",
    "py-frame",
    "py-locals --json",
    "py-print len",
    "py-print no_such_name",
    "py-print --depth 0 x",
    "py-bt --source --json --source-dir /nonexistent",
    "py-list --frame 0 1,3",
    "py-tasks",
    "py-tasks --json",
    "py-waits",
    "py-waits --json",
    "py-heap --top 5",
    "py-heap --json --type Task",
    "py-heap --top 0",
    "py-bt --bogus",
    "py-bt --limit 0",
    "py-up -1",
    "py-list x,y",
    "py-locals --frame",
    // Quoting: one word with a blank, an escaped quote, a backslash kept in double quotes.
    "py-bt \"--no such\"",
    "py-bt '--limit' \"2\"",
    "py-list \"a\\\"b\"",
    "py-list \"a\\b\"",
    "py-list a\\ b",
};

struct Outputs {
  std::vector<std::string> stdout_of;  // per command
  std::vector<std::string> errors;     // pyunwind's error lines, in order
};

// The one thing two runs of a command legitimately print differently: an asyncio.sleep's time
// left on a live process, read from the clock when each command runs.
std::string WithoutTimeLeft(const std::string& text) {
  static const std::regex kTimeLeft(R"re(due in -?[0-9.]+ s|"remaining":-?[0-9.e+-]+)re");
  return std::regex_replace(text, kTimeLeft, "<time left>");
}

// Splits a debugger's stdout at the markers and keeps its pyunwind error lines.
Outputs Collect(Debugger d, const RunResult& run) {
  Outputs out;
  std::istringstream lines(run.out);
  std::string line;
  bool started = false;
  std::string current;
  while (std::getline(lines, line)) {
    if (line == kMarker) {
      if (started) out.stdout_of.push_back(WithoutTimeLeft(current));
      started = true;
      current.clear();
      continue;
    }
    if (!started) continue;
    if (d == Debugger::kLldb && line.rfind("(lldb) ", 0) == 0) continue;  // LLDB's echo
    current += line + "\n";
  }
  std::istringstream errors(run.err);
  while (std::getline(errors, line)) {
    if (d == Debugger::kLldb && line.rfind("error: ", 0) == 0) line = line.substr(7);
    if (line.rfind("pyunwind: ", 0) == 0) out.errors.push_back(line);
  }
  return out;
}

// The debugger's command line: every command of kCommands, each after a marker line.
// LLDB's batch mode stops at the first failed -o command, so the commands are in a file it
// sources with --stop-on-error false.
RunResult RunAll(Debugger d, const Install& install, const Target& target) {
  std::vector<std::string> commands;
  const std::string marker = d == Debugger::kLldb ? std::string("platform shell echo ") + kMarker
                                                  : std::string("echo ") + kMarker + "\\n";
  for (const std::string& command : kCommands) {
    commands.push_back(marker);
    commands.push_back(command);
  }
  commands.push_back(marker);
  if (d == Debugger::kGdb) return RunDebugger(d, install, target, commands);
  const std::string file = TempDir() + "/same_output_lldb_commands";
  std::ofstream(file) << [&] {
    std::string text;
    for (const std::string& c : commands) text += c + "\n";
    return text;
  }();
  return RunDebugger(d, install, target, {"command source --stop-on-error false " + file});
}

class SameOutput : public ::testing::TestWithParam<bool /*live*/> {
 public:
  static void TearDownTestSuite() { shared_ = ScenarioWithCore(); }

 protected:
  static ScenarioWithCore shared_;
};

ScenarioWithCore SameOutput::shared_;

TEST_P(SameOutput, LldbAndGdbPrintTheSame) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Scenario* scenario = shared_.Start(kDebianPython, "asyncio_tree", &error);
  if (!scenario) PYU_SKIP_OR_FAIL(error);
  Target target;
  if (GetParam()) {
    target.pid = scenario->pid();
  } else {
    target.core = shared_.Core("same-output", &error);
    ASSERT_FALSE(target.core.empty()) << error;
    target.executable = kDebianPython;
  }

  const RunResult lldb_run = RunAll(Debugger::kLldb, *install, target);
  const RunResult gdb_run = RunAll(Debugger::kGdb, *install, target);
  ASSERT_TRUE(lldb_run.exited) << lldb_run.Describe();
  ASSERT_TRUE(gdb_run.exited) << gdb_run.Describe();
  const Outputs lldb = Collect(Debugger::kLldb, lldb_run);
  const Outputs gdb = Collect(Debugger::kGdb, gdb_run);

  ASSERT_EQ(lldb.stdout_of.size(), kCommands.size()) << lldb_run.Describe();
  ASSERT_EQ(gdb.stdout_of.size(), kCommands.size()) << gdb_run.Describe();
  for (size_t i = 0; i < kCommands.size(); ++i) {
    EXPECT_EQ(lldb.stdout_of[i], gdb.stdout_of[i]) << "command: " << kCommands[i];
  }
  EXPECT_EQ(lldb.errors, gdb.errors) << lldb_run.err << "\n---\n" << gdb_run.err;
  // The bad options and the quoted "--no such" at least failed, with their own words.
  EXPECT_GE(lldb.errors.size(), 6u) << lldb_run.err;
  bool no_such = false;
  for (const std::string& e : lldb.errors) no_such |= e.find("'--no such'") != std::string::npos;
  EXPECT_TRUE(no_such) << lldb_run.err;
  // Real output, not two empty runs: the JSON document and a traceback.
  EXPECT_NE(lldb.stdout_of[2].find("\"interpreters\""), std::string::npos) << lldb.stdout_of[2];
  EXPECT_NE(lldb.stdout_of[0].find("Traceback"), std::string::npos) << lldb.stdout_of[0];
}

INSTANTIATE_TEST_SUITE_P(AsyncioTree, SameOutput, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "live" : "core_with_exe");
                         });

}  // namespace
}  // namespace pyunwind_e2e

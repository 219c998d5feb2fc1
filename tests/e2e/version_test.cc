// `pyunwind version` in LLDB and GDB, with nothing loaded: the release of packaging/version.bzl,
// the git revision of the checkout it was built from, the debugger it runs in (as the debugger
// itself says), and the CPython minors and builds the core reads. LLDB's own `version` (GDB's
// `show version`) stays theirs. In GDB, `pyunwind version -v` adds how many exceptions the
// GDB script swallowed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

// PYUNWIND_VERSION = "x.y.z" in packaging/version.bzl.
std::string ReleaseVersion() {
  std::smatch match;
  const std::string bzl = ReadFile(ProjectFile("packaging/version.bzl"));
  return std::regex_search(bzl, match, std::regex("PYUNWIND_VERSION = \"([^\"]+)\"")) ? match[1].str()
                                                                                       : "";
}

// The debugger's own version line: "GNU gdb (Debian 13.1-3) 13.1" -> "GDB 13.1";
// "lldb version 14.0.6" as it is.
std::string DebuggerSays(Debugger d) {
  const RunResult run = RunCommand({d == Debugger::kLldb ? "lldb" : "gdb", "--version"}, 60, CleanEnv());
  const std::string first = run.out.substr(0, run.out.find('\n'));
  if (d == Debugger::kLldb) return first;
  return "GDB " + first.substr(first.rfind(' ') + 1);
}

class Version : public ::testing::TestWithParam<Debugger> {};

TEST_P(Version, NamesReleaseRevisionDebuggerAndCPythons) {
  const Debugger d = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const RunResult run = RunDebugger(d, *install, {},
                                    {"pyunwind version --json",
                                     d == Debugger::kLldb ? "version" : "show version",
                                     "pyunwind py-bt"});
  ASSERT_TRUE(run.exited) << run.Describe();  // GDB exits 1 after the failed py-bt
  auto doc = ExtractJson(run.out, &error);
  ASSERT_TRUE(doc.has_value()) << error << "\n" << run.Describe();

  EXPECT_EQ(doc->at("version"), ReleaseVersion());
  EXPECT_EQ(doc->at("debugger"), DebuggerSays(d));
  const std::string revision = doc->at("git_revision");
  const RunResult head = RunCommand({"git", "-C", WorkspaceRoot(), "rev-parse", "HEAD"}, 60);
  if (head.exited && head.exit_code == 0 && head.out.size() >= 40) {
    EXPECT_EQ(revision.substr(0, 40), head.out.substr(0, 40)) << revision;
  } else {
    EXPECT_EQ(revision, "unknown");
  }
  json expected = json::array();
  for (const char* minor : {"2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12"}) {
    expected.push_back({{"version", minor}, {"builds", {"default"}}});
  }
  for (const char* minor : {"3.13", "3.14", "3.15"}) {
    expected.push_back({{"version", minor}, {"builds", {"default", "free-threaded"}}});
  }
  EXPECT_EQ(doc->at("cpython"), expected);
  // Every command is under the prefix too (py-bt here, with nothing to read).
  EXPECT_NE((run.out + run.err).find("pyunwind: no process: attach to a process or load a core file first"),
            std::string::npos)
      << run.Describe();
  // The debugger's own is not taken over.
  EXPECT_NE(run.out.find(d == Debugger::kLldb ? "lldb version" : "GNU gdb"), std::string::npos)
      << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(Debuggers, Version, ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const auto& info) { return std::string(DebuggerName(info.param)); });

// `pyunwind version -v` in GDB adds how many exceptions the GDB script swallowed.
TEST(GdbVersionVerbose, SaysNoneWereSwallowed) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const RunResult run = RunDebugger(Debugger::kGdb, *install, {}, {"pyunwind version -v"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  EXPECT_EQ(LinesContaining(run.out, "pyunwind ").size(), 1u) << run.Describe();
  EXPECT_EQ(LinesContaining(run.out, "GDB script: 0 exceptions swallowed").size(), 1u)
      << run.Describe();
}

// A thread whose OS name is not UTF-8 (Latin-1 "caf\xe9"): GDB's InferiorThread.name raises
// UnicodeDecodeError, which the thread_name callback swallows (py-bt shows the thread without
// its name). `pyunwind version -v` counts it; with PYUNWIND_DEBUG=1 its traceback is printed.
TEST(GdbVersionVerbose, CountsWhatACallbackSwallowedAndPrintsItUnderPyunwindDebug) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const std::string ready = TempDir() + "/latin1_thread_name.ready";
  std::remove(ready.c_str());
  auto process = Process::Spawn({{kDebianPython, "-c",
                                  "import ctypes, sys, time\n"
                                  "ctypes.CDLL(None).prctl(15, b'caf\\xe9', 0, 0, 0)  # PR_SET_NAME\n"
                                  "open(sys.argv[1], 'w').close()\n"
                                  "time.sleep(600)\n",
                                  ready},
                                 {},
                                 "",
                                 ""},
                                &error);
  ASSERT_NE(process, nullptr) << error;
  for (int i = 0; i < 600 && !FileExists(ready); ++i) usleep(100 * 1000);
  ASSERT_TRUE(FileExists(ready)) << "the process did not start";
  WaitUntilMainThreadSettles(process->pid());
  const auto argv = DebuggerArgv(Debugger::kGdb, *install, {process->pid(), "", ""},
                                 {"py-bt", "pyunwind version -v"});

  const RunResult quiet = RunCommand(argv, 180, DebuggerEnv());
  ASSERT_TRUE(quiet.exited && quiet.exit_code == 0) << quiet.Describe();
  EXPECT_FALSE(LinesContaining(quiet.out, "in <module>").empty()) << quiet.Describe();
  const std::regex counted(
      R"(GDB script: \d+ exceptions? swallowed \(thread_name: \d+\); PYUNWIND_DEBUG=1 prints them)");
  EXPECT_TRUE(std::regex_search(quiet.out, counted)) << quiet.Describe();
  EXPECT_EQ(quiet.err.find("Traceback"), std::string::npos) << quiet.Describe();

  auto env = DebuggerEnv();
  env["PYUNWIND_DEBUG"] = "1";
  const RunResult debug = RunCommand(argv, 180, env);
  ASSERT_TRUE(debug.exited && debug.exit_code == 0) << debug.Describe();
  EXPECT_NE(debug.err.find("pyunwind: exception swallowed in thread_name (PYUNWIND_DEBUG=1):\n"
                           "Traceback (most recent call last):\n"),
            std::string::npos)
      << debug.Describe();
  EXPECT_NE(debug.err.find("UnicodeDecodeError"), std::string::npos) << debug.Describe();
  EXPECT_TRUE(std::regex_search(debug.out, std::regex(R"(GDB script: \d+ exceptions? swallowed \(thread_name: \d+\)\n)")))
      << debug.Describe();
}

}  // namespace
}  // namespace pyunwind_e2e

// `pyunwind version` in LLDB and GDB, with nothing loaded: the release of packaging/version.bzl,
// the git revision of the checkout it was built from, the debugger it runs in (as the debugger
// itself says), and the CPython minors and builds the core reads. LLDB's own `version` (GDB's
// `show version`) stays theirs.
#include <gtest/gtest.h>

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
  for (const char* minor : {"3.11", "3.12"}) expected.push_back({{"version", minor}, {"builds", {"default"}}});
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

}  // namespace
}  // namespace pyunwind_e2e

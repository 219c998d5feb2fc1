// A command LLDB's command line runs writes its text straight to the debugger's output
// (lldb_plugin/command_line_output.h), not into the session transcript; a command a script
// runs through HandleCommand keeps it in the result only. In every LLDB major, on a live
// Debian 3.11 threads scenario: `py-bt --all` is typed and the session saved; then a `script`
// line runs `py-bt --all` through SBCommandInterpreter::HandleCommand and prints how many
// tracebacks its result holds. The console must show the typed command's tracebacks once (not
// the script's as well), and the result the same number.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>

#include "tests/e2e/harness.h"
#include "tests/e2e/shared_scenario.h"
#include "tests/e2e/lldb_versions.h"

namespace pyunwind_e2e {
namespace {

const char* const kTraceback = "Traceback (most recent call first):";

class CommandLineOutput : public WithSharedScenario<CommandLineOutput, int> {};

TEST_P(CommandLineOutput, ScriptedHandleCommandPrintsNothingTypedPrintsOnce) {
  std::string why;
  const std::optional<Lldb> lldb = FindLldb(GetParam(), &why);
  if (!lldb) GTEST_SKIP() << why;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Scenario* s = scenario()->Start(kDebianPython, "threads", &error);
  ASSERT_NE(s, nullptr) << error;
  Target target;
  target.pid = s->pid();

  const std::string session = TempDir() + "/session-lldb" + std::to_string(GetParam()) + ".txt";
  const RunResult r = RunLldb(
      *lldb, *install, target,
      {"py-bt --all", "session save " + session,
       // Last: where LLDB's Python does not run, the failed `script` ends the batch.
       "script r = lldb.SBCommandReturnObject(); "
       "lldb.debugger.GetCommandInterpreter().HandleCommand('py-bt --all', r); "
       "print('captured tracebacks:', r.GetOutput().count('" + std::string(kTraceback) + "'))"});
  ASSERT_TRUE(r.exited) << r.Describe();
  // Whole lines: LLDB's echo of the `script` command holds the words too.
  const size_t typed = Occurrences(r.out, "\n" + std::string(kTraceback) + "\n");
  ASSERT_GT(typed, 0u) << "the typed py-bt --all printed no traceback\n" << r.Describe();
  // What docs/commands.md says of `session save`: LLDB 14-18 keep every command in the transcript,
  // the text of a typed pyunwind command not (19 and later keep none unless asked).
  const std::string saved = ReadFile(session);
  if (saved.find("py-bt --all") != std::string::npos) {
    EXPECT_EQ(saved.find(kTraceback), std::string::npos) << saved.substr(0, 2000);
  }

  std::smatch captured;
  const std::regex line("\ncaptured tracebacks: (\\d+)\n");
  if (!std::regex_search(r.out, captured, line)) {
    // The typed command was still checked above.
    GTEST_SKIP() << lldb->version << ": its embedded Python does not run here (no result "
                 << "line from the `script` command)";
  }
  EXPECT_EQ(std::stoul(captured[1]), typed) << r.Describe();
  EXPECT_EQ(typed, s->truth().at("threads").size())
      << "the console shows the script's py-bt --all as well\n" << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Majors, CommandLineOutput, ::testing::ValuesIn(TestedLldbMajors()),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "lldb" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace pyunwind_e2e

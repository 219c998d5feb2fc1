// `py-bt` where there is no Python to show: no process at all, a live process that is not
// Python (`sleep`), and a core of a non-Python program. In LLDB and GDB: pyunwind says so in
// one line starting with "pyunwind:", the command fails (non-zero exit or an "error" marker),
// and the debugger exits normally (no crash).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

enum class Situation { kNothingLoaded, kLiveNotPython, kCoreNotPython };

struct ErrorCase {
  Debugger debugger;
  Situation situation;
};

// The bad-input table of docs/limits.md, word for word (BadInputTableSaysTheseWords).
const char* ExpectedMessage(Situation s) {
  switch (s) {
    case Situation::kNothingLoaded:
      return "pyunwind: no process: attach to a process or load a core file first";
    case Situation::kLiveNotPython:
    case Situation::kCoreNotPython:
      return "pyunwind: not a Python process: no Python runtime found in the target's writable "
             "memory and there is no _PyRuntime symbol";
  }
  return "?";
}

const char* SituationName(Situation s) {
  switch (s) {
    case Situation::kNothingLoaded: return "nothing_loaded";
    case Situation::kLiveNotPython: return "live_sleep";
    case Situation::kCoreNotPython: return "core_of_sleep";
  }
  return "?";
}

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << DebuggerName(c.debugger) << ", " << SituationName(c.situation);
}

class ErrorPaths : public ::testing::TestWithParam<ErrorCase> {
 public:
  static void TearDownTestSuite() {
    sleeper_.reset();
    core_.clear();
  }

 protected:
  // One `sleep 300` (and its core) for all cases.
  static pid_t Sleeper(std::string* error) {
    if (!sleeper_) {
      ProcessOptions options;
      options.argv = {"sleep", "300"};
      options.env = CleanEnv();
      sleeper_ = Process::Spawn(options, error);
      if (!sleeper_) return 0;
    }
    return sleeper_->pid();
  }
  static std::string SleeperCore(std::string* error) {
    if (core_.empty()) {
      pid_t pid = Sleeper(error);
      if (!pid) return "";
      core_ = MakeCore(pid, "sleep", error);
    }
    return core_;
  }

  static std::unique_ptr<Process> sleeper_;
  static std::string core_;
};

std::unique_ptr<Process> ErrorPaths::sleeper_;
std::string ErrorPaths::core_;

TEST_P(ErrorPaths, PyBtSaysWhyInOneLine) {
  const ErrorCase& c = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  Target target;
  if (c.situation == Situation::kLiveNotPython) {
    target.pid = Sleeper(&error);
    ASSERT_NE(target.pid, 0) << error;
  } else if (c.situation == Situation::kCoreNotPython) {
    target.core = SleeperCore(&error);
    ASSERT_FALSE(target.core.empty()) << error;
  }

  RunResult r = RunDebugger(c.debugger, *install, target, {"py-bt"});
  std::string all = r.out + r.err;
  std::string context = r.Describe();

  ASSERT_TRUE(r.exited) << "the debugger did not exit normally\n" << context;
  auto lines = LinesContaining(all, "pyunwind:");
  ASSERT_EQ(lines.size(), 1u) << "expected exactly one line with \"pyunwind:\"\n" << context;
  EXPECT_NE(lines[0].find(ExpectedMessage(c.situation)), std::string::npos)
      << "expected the message of docs/limits.md: " << ExpectedMessage(c.situation) << "\n"
      << context;
  EXPECT_TRUE(r.exit_code != 0 || lines[0].find("error") != std::string::npos)
      << "the failure is not marked (exit 0 and no \"error\" in the line)\n"
      << context;
  // No C++ exception text, and no Python traceback from GDB's front-end script (LLDB 14
  // prints one of its own at start-up, about lldb.embedded_interpreter: not ours).
  EXPECT_EQ(all.find("terminate called"), std::string::npos) << context;
  if (c.debugger == Debugger::kGdb) {
    EXPECT_EQ(all.find("Traceback (most recent call last)"), std::string::npos) << context;
  }
}

std::vector<ErrorCase> AllCases() {
  std::vector<ErrorCase> cases;
  for (Situation s :
       {Situation::kNothingLoaded, Situation::kLiveNotPython, Situation::kCoreNotPython})
    for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cases.push_back({d, s});
  return cases;
}

// What the debuggers print above is what the user's page says: each message stands in
// docs/limits.md's bad-input table, in backquotes, on the row of its situation.
TEST(ErrorPathsDoc, BadInputTableSaysTheseWords) {
  const std::string page = ReadFile(ProjectFile("docs/limits.md"));
  ASSERT_NE(page.find("## Bad input"), std::string::npos) << "docs/limits.md: no bad-input table";
  const std::pair<Situation, std::string> rows[] = {
      {Situation::kNothingLoaded, "| no target (debugger with nothing loaded) | `"},
      {Situation::kLiveNotPython, "| a non-Python process (`sleep`) | `"},
  };
  for (const auto& [situation, row] : rows) {
    const std::string line = row + ExpectedMessage(situation) + "` |";
    EXPECT_NE(page.find(line), std::string::npos) << "docs/limits.md lacks the row\n" << line;
  }
  // A core of a non-Python program: "the same line" as the live process.
  EXPECT_EQ(std::string(ExpectedMessage(Situation::kCoreNotPython)),
            std::string(ExpectedMessage(Situation::kLiveNotPython)));
  EXPECT_NE(page.find("| a core of a non-Python program | the same line |"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(NoPython, ErrorPaths, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return std::string(DebuggerName(info.param.debugger)) + "_" +
                                  SituationName(info.param.situation);
                         });

}  // namespace
}  // namespace pyunwind_e2e

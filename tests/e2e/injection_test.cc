// No target-chosen byte reaches the terminal raw. tests/data/injection.py names
// a code object's file "\x1b]0;PWNED-TITLE\x07\x1b[2J/evil.py" (sets the terminal's title,
// clears the screen), its qualified name "q\r\nForged: line", another file with a
// right-to-left override and a C1 CSI, and an asyncio task
// "\x1b[31mRED\x1b[0m-task\r\nInjected line". In LLDB and GDB, live and from a gcore core,
// py-bt --all (with and without --locals), py-tasks, py-tasks --tree and the debugger's own
// backtrace of every thread (which GDB's frame filter decorates with Python frames) must
// write none of those bytes (every byte the debugger wrote is scanned) and must show each name escaped
// the way Python's repr shows it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/shared_scenario.h"

namespace pyunwind_e2e {
namespace {

struct Case {
  Debugger debugger;
  bool live;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.live ? "live_" : "core_") + DebuggerName(info.param.debugger);
}

// Bytes a terminal acts on that neither pyunwind nor the debugger writes on its own: ESC,
// BEL, CR, other C0 controls but '\n' and '\t' (GDB's own source listing has tabs), DEL,
// the C1 CSI (U+009B) and the RLO override (U+202E) in UTF-8.
std::string RawControlBytes(const std::string& text) {
  std::string found;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c0 = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
    const bool csi = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x9b;
    const bool rlo = text.compare(i, 3, "\xe2\x80\xae") == 0;
    if (c0 || csi || rlo) {
      found += "offset " + std::to_string(i) + ": ..." +
               text.substr(i >= 20 ? i - 20 : 0, 40) + "...\n";
      if (found.size() > 2000) break;
    }
  }
  return found;
}

class Injection : public WithSharedScenario<Injection, Case> {};

TEST_P(Injection, NoRawControlBytesAndEveryNameEscaped) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Scenario* s = scenario()->StartScript(kDebianPython, ProjectFile("tests/data/injection.py"),
                                              &error);
  ASSERT_NE(s, nullptr) << error;
  Target target;
  if (GetParam().live) {
    target.pid = s->pid();
  } else {
    target.core = scenario()->Core("injection", &error);
    ASSERT_FALSE(target.core.empty()) << error;
  }
  // GDB's plain `bt` carries pyunwind's decoration of each eval-loop frame (the frame
  // filter); LLDB's is its own backtrace.
  const std::string all_threads_bt =
      GetParam().debugger == Debugger::kGdb ? "thread apply all bt" : "thread backtrace all";
  const RunResult r = RunDebugger(GetParam().debugger, *install, target,
                                  {"py-bt --all", "py-bt --all --locals", "py-tasks",
                                   "py-tasks --tree", all_threads_bt});
  ASSERT_TRUE(r.exited) << r.Describe();
  const std::string all = r.out + r.err;
  EXPECT_EQ(RawControlBytes(all), "") << r.Describe();
  for (const char* escaped :
       {"File \"\\x1b]0;PWNED-TITLE\\x07\\x1b[2J/evil.py\", line 4, in q\\r\\nForged: line",
        "/tmp/\\u202egnp.py\\x9b2J",
        "\\x1b[31mRED\\x1b[0m-task\\r\\nInjected line"}) {
    EXPECT_NE(all.find(escaped), std::string::npos) << escaped << "\n" << r.Describe();
  }
  // The local's repr is escaped by repr rules (as Python's own repr() shows it).
  EXPECT_NE(all.find("secret = '\\x1b[2J\\u202e\\r\\nforged'"), std::string::npos)
      << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Debuggers, Injection,
                         ::testing::Values(Case{Debugger::kLldb, true}, Case{Debugger::kGdb, true},
                                           Case{Debugger::kLldb, false},
                                           Case{Debugger::kGdb, false}),
                         CaseName);

}  // namespace
}  // namespace pyunwind_e2e

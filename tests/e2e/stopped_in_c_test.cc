// Python frames stopped inside C code they called (tests/data/stopped_in_c.py), live on
// Debian's python3.11 and its debug build python3.11d, in LLDB and GDB. Attached, the debugger
// selects the main thread's frame 0, inside time.sleep's C code, newer than the eval-loop
// frame of Python frame 0 (baz): py-down first says there is nothing newer and selects
// nothing; the first py-up selects baz (#0), as GDB's `up` and libpython's py-up do, and its
// summary carries the C call py-bt prints under baz; py-locals then shows baz's locals; py-up
// reaches bar (#1), and py-down twice comes back to baz and says it is the newest.
// py-locals, py-list and py-print show the frame py-up would start from: baz stopped in C,
// bar after py-up twice, baz again once the debugger's own `frame 0` selected the C code.
// py-bt's C-call line under each frame (text and --json `calling`) is repr() of the callee
// as the process gives it. py-print shows C-level callables, instances, a bound method and a
// class as repr() does in the process. One scenario process per interpreter serves both
// debuggers and every test.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"
#include "tests/e2e/truth_checks.h"

namespace pyunwind_e2e {
namespace {

// Success when each of `texts` is in `out`, each after the end of the one before.
::testing::AssertionResult AppearInOrder(const std::string& out,
                                         const std::vector<std::string>& texts) {
  size_t at = 0;
  for (const std::string& text : texts) {
    const size_t found = out.find(text, at);
    if (found == std::string::npos) {
      return ::testing::AssertionFailure() << "missing, in this order: " << text;
    }
    at = found + text.size();
  }
  return ::testing::AssertionSuccess();
}

const char* const kScript = "tests/data/stopped_in_c.py";

using Cell = std::tuple<std::string, Debugger>;  // interpreter, debugger

class StoppedInC : public ::testing::TestWithParam<Cell> {
 public:
  static void TearDownTestSuite() { ScenarioMatrixTest::TearDownTestSuite(); }

 protected:
  void SetUp() override {
    std::string skip, error;
    scenario_ = MatrixScenario(std::get<0>(GetParam()), kScript, &skip, &error);
    if (!skip.empty()) GTEST_SKIP() << skip;
    ASSERT_NE(scenario_, nullptr) << error;
    install_ = Installed(&error);
    ASSERT_NE(install_, nullptr) << error;
    target_.pid = scenario_->pid();
  }

  // The truth's thread of `role`.
  const json& ThreadOf(const std::string& role) {
    for (const json& thread : scenario_->truth().at("threads")) {
      if (thread.at("role") == role) return thread;
    }
    ADD_FAILURE() << "no thread " << role;
    static const json none = json::object();
    return none;
  }

  const Scenario* scenario_ = nullptr;
  const Install* install_ = nullptr;
  Target target_;
};

// "#N File "F", line L, in Q\n" of frame `n` of `thread` in the truth.
std::string Header(const json& thread, size_t n) {
  const json& f = thread.at("frames").at(n);
  return "#" + std::to_string(n) + " File \"" + f.at("filename").get<std::string>() +
         "\", line " + std::to_string(f.at("line").get<int>()) + ", in " +
         f.at("qualname").get<std::string>() + "\n";
}

TEST_P(StoppedInC, PyUpStartsFromTheSelectedNativeFrame) {
  const json& main = ThreadOf("main");
  ASSERT_GE(main.value("frames", json::array()).size(), 3u);
  const RunResult run = RunDebugger(
      std::get<1>(GetParam()), *install_, target_,
      {"py-bt --no-source", "py-down", "py-up", "py-locals", "py-up", "py-down", "py-down"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const std::string baz = Header(main, 0);
  // The C call py-bt prints under baz: the line after baz's.
  const size_t in_bt = run.out.find(baz.substr(3, baz.size() - 3));
  ASSERT_NE(in_bt, std::string::npos) << run.Describe();
  const size_t call_start = in_bt + baz.size() - 3;
  const std::string call = run.out.substr(call_start, run.out.find('\n', call_start) - call_start);
  ASSERT_EQ(call, "    " + main.at("calling").at(0).get<std::string>())
      << "not repr(time.sleep) under baz in py-bt\n" << run.Describe();
  // In order, each after the one before.
  const std::vector<std::string> want = {
      "Newest Python frame reached.\n",                              // py-down: nothing newer
      baz + "    time.sleep(3600)  # parked\n" + call + "\n",       // py-up: baz, its C call
      baz + "  args = (1, 2, 3)\n",                                  // py-locals: baz's
      Header(main, 1) + "    baz(a, b, c)\n",                        // py-up: bar
      baz,                                                           // py-down: baz
      "Newest Python frame reached.\n" + baz,                        // py-down: the newest
  };
  ASSERT_TRUE(AppearInOrder(run.out, want)) << run.Describe();
  // The first py-down selected no frame: nothing but its note before py-up's baz.
  const size_t note = run.out.find(want[0]);
  EXPECT_EQ(run.out.find("#", note), run.out.find(want[1])) << run.Describe();
}

// py-bt --all's C-call line under each frame of each thread: repr() of the callee as the
// process gave it (the truth's `calling`: a C function, a builtin calling back into Python, a
// method-wrapper, a class), in --json and in the text, and null in --json where the frame
// calls Python code.
TEST_P(StoppedInC, PyBtCallsAreReprs) {
  const RunResult run = RunDebugger(std::get<1>(GetParam()), *install_, target_,
                                    {"py-bt --all --json", "py-bt --all --no-source"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  const auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got.has_value()) << error << "\n" << run.Describe();
  const std::map<uint64_t, json> threads = ThreadsByNativeId(*got);
  size_t named = 0;
  for (const std::string role : {"main", "callback", "slot"}) {
    SCOPED_TRACE("thread " + role);
    const json& want = ThreadOf(role);
    auto found = threads.find(want.at("native_id").get<uint64_t>());
    ASSERT_NE(found, threads.end()) << run.Describe();
    ExpectCallsAsTruth(found->second, want, run.out, &named);
  }
  EXPECT_EQ(named, 6u);  // sleep; sleep, sorted; sleep, the method-wrapper, the class
}

// py-locals, py-list and py-print read the frame py-up / py-down / py-frame take as selected:
// stopped in C, baz (#0); after py-up twice, bar (#1); after the debugger's own `frame 0`
// (back in time.sleep's C code, newer than baz's eval loop), baz again, where py-up starts.
TEST_P(StoppedInC, FrameCommandsReadThePyUpSelection) {
  const json& main = ThreadOf("main");
  ASSERT_GE(main.value("frames", json::array()).size(), 3u);
  const Debugger debugger = std::get<1>(GetParam());
  const std::string native_frame_0 = debugger == Debugger::kLldb ? "frame select 0" : "frame 0";
  // Each name py-print asks for is a local of the frame it expects (a failed command may end
  // a debugger's batch run).
  const std::vector<std::string> in_baz_commands = {"py-locals", "py-print args", "py-list"};
  std::vector<std::string> commands = in_baz_commands;
  commands.insert(commands.end(), {"py-up", "py-up", "py-locals", "py-print a", "py-list"});
  commands.push_back(native_frame_0);
  commands.insert(commands.end(), in_baz_commands.begin(), in_baz_commands.end());
  commands.push_back("py-up");
  const RunResult run = RunDebugger(debugger, *install_, target_, commands);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const std::string baz = Header(main, 0), bar = Header(main, 1);
  // py-list's current line: ">LINE" right-aligned in 4 columns.
  auto current = [&](size_t n) {
    const std::string label = ">" + std::to_string(main.at("frames").at(n).at("line").get<int>());
    return std::string(label.size() < 4 ? 4 - label.size() : 0, ' ') + label + "    ";
  };
  const std::string locals_of_baz = baz + "  args = (1, 2, 3)\n";
  const std::string args = "local 'args' = (1, 2, 3)\n";
  const std::vector<std::string> want = {
      locals_of_baz, args, current(0) + "        time.sleep(3600)  # parked\n",
      bar + "    baz(a, b, c)\n",  // py-up twice: bar
      bar + "  a = 1\n", "local 'a' = 1\n", current(1) + "    baz(a, b, c)\n",
      locals_of_baz, args, current(0) + "        time.sleep(3600)  # parked\n",  // frame 0
      baz + "    time.sleep(3600)  # parked\n",  // py-up from the C code: baz first
  };
  EXPECT_EQ(run.err.find("is not defined"), std::string::npos) << run.Describe();
  ASSERT_TRUE(AppearInOrder(run.out, want)) << run.Describe();
}

// py-print of each C-level callable the scenario keeps in a global, as repr() gives it in the
// process: a C function, a C method bound to an instance, a method-wrapper, a slot wrapper, a
// method descriptor, a Python method bound to a tuple and to an instance
// (<bound method Plain.method of <__main__.Plain object at 0x...>>), instances of a class and
// of a nested class (<__main__.Plain.Inner object at 0x...>) and the nested class itself.
TEST_P(StoppedInC, PyPrintShowsCallablesAsRepr) {
  const json& reprs = scenario_->truth().at("reprs");
  ASSERT_EQ(reprs.size(), 10u) << reprs.dump();
  std::vector<std::string> commands;
  for (const auto& [name, repr] : reprs.items()) commands.push_back("py-print " + name);
  const RunResult run = RunDebugger(std::get<1>(GetParam()), *install_, target_, commands);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  for (const auto& [name, repr] : reprs.items()) {
    const std::string want = "global '" + name + "' = " + repr.get<std::string>() + "\n";
    EXPECT_NE(run.out.find(want), std::string::npos) << want << run.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Interpreters, StoppedInC,
                         ::testing::Combine(::testing::Values("debian_3.11", "debian_3.11d"),
                                            ::testing::Values(Debugger::kLldb, Debugger::kGdb)),
                         [](const ::testing::TestParamInfo<Cell>& info) {
                           return SanitizeName(std::get<0>(info.param)) + "_" +
                                  DebuggerName(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace pyunwind_e2e

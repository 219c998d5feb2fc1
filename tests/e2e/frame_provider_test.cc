// LLDB 22's frame providers put each Python frame into LLDB's own `bt`
// (lldb_plugin/pyunwind_lldb_frames.py, which `plugin load` alone imports): on a live Debian python3.11
// `threads` scenario every truth thread's Python frames appear in one thread's `bt all`, in
// order, each run of them right after an eval-loop frame (_PyEval_EvalFrameDefault), and
// `frame select N` on one says where it is; on the 3.12.6 threads fixture core (no
// executable: LLDB cannot unwind past frame 0, so they come after the native frames). The
// same in an editor's call stack: lldb-dap over stdio (tools/lldb_dap_stacks.py), each
// Python frame with its own name, file and line. Also: loaded from ~/.lldbinit before any
// target, a second import by hand, the opt-out; LLDB 14 and 19 (no frame providers): silent,
// `bt` unchanged. A hung debugger is killed after kHangTimeoutS: a failure.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/lldb_versions.h"
#include "tests/e2e/scenario_sources.h"

namespace pyunwind_e2e {
namespace {

struct PythonLine {
  std::string qualname, file;
  int line = 0;
  bool operator==(const PythonLine& o) const {
    return qualname == o.qualname && file == o.file && line == o.line;
  }
};

struct ThreadBlock {
  std::vector<PythonLine> python;  // its [synthetic] frames, in order
  std::vector<int> python_numbers; // their frame numbers
  bool each_run_after_eval_loop = true;
  bool pc_is_position = true;       // each Python frame's pc is its frame number (bt only)
  bool selected = false;
};

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Builds one thread's block from its frames, innermost first.
struct BlockBuilder {
  ThreadBlock block;
  bool previous_eval_loop = false, previous_python = false;
  void Python(PythonLine frame, int number) {
    if (!previous_python && !previous_eval_loop) block.each_run_after_eval_loop = false;
    block.python.push_back(std::move(frame));
    block.python_numbers.push_back(number);
    previous_python = true;
    previous_eval_loop = false;
  }
  void Native(const std::string& text) {
    previous_eval_loop = text.find("_PyEval_EvalFrameDefault") != std::string::npos;
    previous_python = false;
  }
};

// A Python frame's line: `frame #N: ` its pc (its position: a number of the provider's own),
// the target's executable (where it has one), then qualified name and where it is.
const std::regex& PythonFrameLine() {
  static const std::regex re(
      R"(frame #(\d+): 0x([0-9a-f]+) (?:[^ `]+`)?(.*) at ([^ ]+):(\d+) \[synthetic\]$)");
  return re;
}

// The thread blocks of `bt all` output.
std::vector<ThreadBlock> ParseBacktrace(const std::string& out) {
  static const std::regex thread_re(R"(^(\*| ) thread #\d+)");
  const std::regex& python_re = PythonFrameLine();
  std::vector<BlockBuilder> threads;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    start = end + 1;
    std::smatch m;
    if (std::regex_search(line, m, thread_re)) {
      threads.emplace_back();
      threads.back().block.selected = m[1] == "*";
      continue;
    }
    if (threads.empty() || line.find("frame #") == std::string::npos) continue;
    if (std::regex_search(line, m, python_re)) {
      const int number = std::stoi(m[1]);
      if (std::stoull(m[2], nullptr, 16) != static_cast<unsigned long long>(number)) {
        threads.back().block.pc_is_position = false;
      }
      threads.back().Python({m[3], m[4], std::stoi(m[5])}, number);
    } else {
      threads.back().Native(line);
    }
  }
  std::vector<ThreadBlock> blocks;
  for (auto& t : threads) blocks.push_back(std::move(t.block));
  return blocks;
}

std::vector<PythonLine> TruthFrames(const json& thread) {
  std::vector<PythonLine> frames;
  for (const json& f : thread.at("frames")) {
    frames.push_back({f.at("qualname").get<std::string>(),
                      Basename(f.at("filename").get<std::string>()), f.at("line").get<int>()});
  }
  return frames;
}

std::string Describe(const std::vector<PythonLine>& frames) {
  std::string out;
  for (const auto& f : frames) out += "    " + f.qualname + " at " + f.file + ":" + std::to_string(f.line) + "\n";
  return out;
}

// Every truth thread's frames are exactly one block's Python frames; with `eval_loop`, each
// run of them follows an eval-loop frame. "" when so.
std::string CompareBacktrace(const json& truth, const std::vector<ThreadBlock>& blocks,
                             bool eval_loop) {
  std::string report;
  size_t with_python = 0;
  for (const ThreadBlock& b : blocks) with_python += !b.python.empty();
  if (with_python != truth.at("threads").size()) {
    report += "threads with Python frames in bt: " + std::to_string(with_python) + ", truth " +
              std::to_string(truth.at("threads").size()) + "\n";
  }
  for (const json& t : truth.at("threads")) {
    const std::vector<PythonLine> want = TruthFrames(t);
    const ThreadBlock* found = nullptr;
    for (const ThreadBlock& b : blocks) {
      if (b.python == want) found = &b;
    }
    if (found == nullptr) {
      report += "no thread in bt shows the truth of thread " + t.at("native_id").dump() + ":\n" +
                Describe(want);
    } else if (eval_loop && !found->each_run_after_eval_loop) {
      report += "thread " + t.at("native_id").dump() + ": a Python frame not after an eval-loop frame\n";
    } else if (!found->pc_is_position) {
      report += "thread " + t.at("native_id").dump() + ": a Python frame's pc is not its frame number\n";
    }
  }
  return report;
}

// A debugger that hangs (LLDB 22.1.8 did, with a provider that took its locks:
// lldb_plugin/README.md) is killed after this long, and the case fails.
constexpr double kHangTimeoutS = 60;

std::vector<std::string> LldbArgv(const Lldb& lldb, const Install& install, const Target& target,
                                  const std::vector<std::string>& commands) {
  std::vector<std::string> argv = {lldb.path, "--batch", "--no-lldbinit"};
  if (!target.core.empty()) argv.insert(argv.end(), {"-c", target.core});
  argv.insert(argv.end(), {"-o", "plugin load " + install.lldb_plugin});
  for (const auto& c : commands) argv.insert(argv.end(), {"-o", c});
  if (target.pid) argv.insert(argv.end(), {"-p", std::to_string(target.pid)});
  return argv;
}

std::map<std::string, std::string> LldbEnv(const Lldb& lldb) {
  std::map<std::string, std::string> env = DebuggerEnv();
  for (const auto& [k, v] : lldb.env) env[k] = v;
  return env;
}

RunResult RunBatch(const Lldb& lldb, const std::vector<std::string>& argv,
                   const std::map<std::string, std::string>& extra_env = {}) {
  std::map<std::string, std::string> env = LldbEnv(lldb);
  for (const auto& [k, v] : extra_env) env[k] = v;
  return RunCommand(argv, kHangTimeoutS, env);
}

// The provider script as a user would import it by hand, beside the plugin.
std::string ImportByHand(const Install& install) {
  return "command script import " + install.dir + "/pyunwind_lldb_frames.py";
}

// The call stacks an editor gets from LLDB 22's lldb-dap (tools/lldb_dap_stacks.py), as
// thread blocks: a frame whose source is a .py file is a Python frame. *raw: the tool's output.
std::vector<ThreadBlock> DapStacks(const Lldb& lldb, const Install& install, const Target& target,
                                   std::string* raw, std::string* error,
                                   const std::string& evaluate = "") {
  const std::string bin = lldb.path.substr(0, lldb.path.rfind('/'));
  const std::string dir = install.lldb_plugin.substr(0, install.lldb_plugin.rfind('/'));
  std::vector<std::string> argv = {kDebianPython, ProjectFile("tools/lldb_dap_stacks.py"),
                                   bin + "/lldb-dap", dir};
  if (target.pid) {
    argv.insert(argv.end(), {"--pid", std::to_string(target.pid)});
  } else {
    argv.insert(argv.end(), {"--core", target.core});
  }
  if (!evaluate.empty()) argv.insert(argv.end(), {"--evaluate", evaluate});
  RunResult r = RunCommand(argv, kHangTimeoutS, LldbEnv(lldb));
  if (!r.exited || r.exit_code != 0) {
    *error = r.Describe();
    return {};
  }
  *raw = r.out;
  std::vector<ThreadBlock> blocks;
  const json document = json::parse(r.out, nullptr, false);
  if (document.is_discarded() || !document.contains("threads")) {
    *error = "not the tool's JSON: " + r.out;
    return {};
  }
  for (const json& thread : document.at("threads")) {
    BlockBuilder b;
    int number = 0;
    for (const json& f : thread.at("frames")) {
      auto text = [&f](const char* key) {
        return f.contains(key) && f[key].is_string() ? f[key].get<std::string>() : std::string();
      };
      const std::string file = text("file"), name = text("name");
      const bool python_file = file.size() > 3 && file.compare(file.size() - 3, 3, ".py") == 0;
      if (python_file && f.contains("line") && f["line"].is_number_integer()) {
        b.Python({name, Basename(file), f["line"].get<int>()}, number);
      } else {
        b.Native(name);
      }
      ++number;
    }
    blocks.push_back(std::move(b.block));
  }
  return blocks;
}

// LLDB 22, the install, and a target with its truth: the live Debian 3.11 `threads` scenario,
// or the 3.12.6 `threads` fixture core. Skips (or fails) the case when one cannot be had.
class Lldb22 : public ::testing::Test {
 protected:
  void Prepare(bool live) {
    std::string why;
    lldb_ = FindLldb(22, &why);
    if (!lldb_) GTEST_SKIP() << why;
    std::string error;
    install_ = Installed(&error);
    ASSERT_NE(install_, nullptr) << error;
    if (live) {
      scenario_ = Scenario::Start(kDebianPython, "threads", &error);
      if (!scenario_) PYU_SKIP_OR_FAIL(error);
      target_.pid = scenario_->pid();
      truth_ = scenario_->truth();
      return;
    }
    const SourceCase source{"threads", "3.12.6", false, Debugger::kLldb};
    if (!FileExists(source.CoreDir() + "/core.xz")) GTEST_SKIP() << "no fixture core " << source.CoreDir();
    target_.core = TempDir() + "/threads-3.12.6.core";
    ASSERT_TRUE(DecompressXz(source.CoreDir() + "/core.xz", target_.core, &error)) << error;
    truth_ = json::parse(ReadFile(source.CoreDir() + "/truth.json"));
  }
  bool Ready() const { return !IsSkipped() && !HasFailure(); }

  // lldb-dap's call stacks hold every truth thread's Python frames; live, each run of them
  // after an eval-loop frame (from the core LLDB unwinds none).
  void ExpectDapCallStacksHoldTruth(bool live) {
    Prepare(live);
    if (!Ready()) return;
    std::string raw, error;
    const auto blocks = DapStacks(*lldb_, *install_, target_, &raw, &error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(CompareBacktrace(truth_, blocks, live), "") << raw;
  }

  std::optional<Lldb> lldb_;
  const Install* install_ = nullptr;
  std::unique_ptr<Scenario> scenario_;
  Target target_;
  json truth_;
};

TEST_F(Lldb22, BtShowsPythonFramesOfLiveProcess) {
  Prepare(true);
  if (!Ready()) return;
  RunResult r = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, target_, {"bt all"}));
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  const auto blocks = ParseBacktrace(r.out);
  EXPECT_EQ(CompareBacktrace(truth_, blocks, true), "") << r.out;

  // frame select on the selected thread's first Python frame says where it is.
  const ThreadBlock* selected = nullptr;
  for (const auto& b : blocks) {
    if (b.selected) selected = &b;
  }
  ASSERT_TRUE(selected && !selected->python.empty()) << r.out;
  const int n = selected->python_numbers.front();
  const PythonLine& f = selected->python.front();
  RunResult s = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, target_,
                                          {"frame select " + std::to_string(n), "frame variable"}));
  ASSERT_TRUE(s.exited && s.exit_code == 0) << s.Describe();
  // LLDB 22.1 does not ask a provider's frames for their variables (ScriptedFrame's
  // get_variables is never called): `frame variable` there prints nothing (docs/support.md).
  // When an LLDB starts asking, this fails and the provider should answer.
  const size_t variables = s.out.find("(lldb) frame variable\n");
  ASSERT_NE(variables, std::string::npos) << s.out;
  // No "(TYPE) NAME = VALUE" line follows (LLDB may still be printing the attach's stop).
  std::istringstream after(s.out.substr(variables));
  const std::regex variable_line(R"(^\(.*\) \S+ = )");
  for (std::string line; std::getline(after, line);) {
    EXPECT_FALSE(std::regex_search(line, variable_line)) << line << "\n" << s.out;
  }
  size_t said = 0;
  for (const std::string& line : LinesContaining(s.out, "[synthetic]")) {
    std::smatch m;
    if (std::regex_search(line, m, PythonFrameLine()) && std::stoi(m[1]) == n &&
        PythonLine{m[3], m[4], std::stoi(m[5])} == f) {
      ++said;
    }
  }
  EXPECT_EQ(said, 1u) << "frame #" << n << ": " << f.qualname << " at " << f.file << ":" << f.line
                      << "\n" << s.out;
}

TEST_F(Lldb22, BtShowsPythonFramesOfFixtureCore) {
  Prepare(false);
  if (!Ready()) return;
  RunResult r = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, target_, {"bt all"}));
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  // No executable here: LLDB unwinds no eval-loop frame, so the frames come after its own.
  EXPECT_EQ(CompareBacktrace(truth_, ParseBacktrace(r.out), false), "") << r.out;
}

// The plugin loaded from ~/.lldbinit, before any target: the first stop after attaching (the
// one LLDB prints) shows every truth thread's Python frames, the selected thread's included,
// in `bt all` and in plain `bt`.
TEST_F(Lldb22, LoadedFromLldbinitBeforeAnyTarget) {
  Prepare(true);
  if (!Ready()) return;
  const std::string home = TempDir() + "/home-frame-provider";
  ASSERT_TRUE(RunCommand({"mkdir", "-p", home}, 10).exit_code == 0);
  {
    std::ofstream init(home + "/.lldbinit");
    init << "plugin load " << install_->lldb_plugin << "\n";
  }
  RunResult r = RunBatch(*lldb_, {lldb_->path, "--batch", "-p", std::to_string(target_.pid),
                                  "-o", "bt all", "-o", "bt"},
                         {{"HOME", home}});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  std::vector<ThreadBlock> blocks = ParseBacktrace(r.out);
  // The last block is plain `bt`'s: the selected thread, with its Python frames.
  ASSERT_FALSE(blocks.empty()) << r.out;
  EXPECT_TRUE(blocks.back().selected && !blocks.back().python.empty()) << r.out;
  blocks.pop_back();
  EXPECT_EQ(CompareBacktrace(truth_, blocks, true), "") << r.out;
}

// Importing the provider by hand after `plugin load` (the line this needed before) changes
// nothing: one stop hook, every truth thread's frames once.
TEST_F(Lldb22, SecondImportByHandIsHarmless) {
  Prepare(true);
  if (!Ready()) return;
  RunResult r = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, target_,
                                          {ImportByHand(*install_), "target stop-hook list", "bt all"}));
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_EQ(LinesContaining(r.out, "ReadAtStop").size(), 1u) << r.out;
  EXPECT_EQ(CompareBacktrace(truth_, ParseBacktrace(r.out), true), "") << r.out;
  EXPECT_EQ(LinesContaining(r.err, "error").size(), 0u) << r.err;
}

// PYUNWIND_LLDB_FRAME_PROVIDER=0: `plugin load` leaves LLDB's own bt (the commands still work).
TEST_F(Lldb22, OptOutKeepsLldbsOwnBt) {
  Prepare(true);
  if (!Ready()) return;
  RunResult r = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, target_,
                                          {"bt all", "py-bt --all", "py-bt -v --no-source"}),
                         {{"PYUNWIND_LLDB_FRAME_PROVIDER", "0"}});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_EQ(LinesContaining(r.out, "warning: LLDB's bt shows no Python frames: "
                                   "PYUNWIND_LLDB_FRAME_PROVIDER=0").size(), 1u) << r.out;
  EXPECT_TRUE(LinesContaining(r.out, "[synthetic]").empty()) << r.out;
  EXPECT_GE(LinesContaining(r.out, "_PyEval_EvalFrameDefault").size(), 1u) << r.out;
  EXPECT_GE(LinesContaining(r.out, "sleep_forever").size(), 1u) << r.out;  // py-bt's
}

// LLDB 22 and 23 print every thread's status again whenever a frame provider is registered or
// removed, and the script registers one after reading each stop: it makes each change so that
// nothing is printed for it (pyunwind_lldb_frames.py, _change_quietly). Counted in LLDB's
// output, with and without the provider: after `plugin load` on the 3.12.6 core (and a pause, as
// LLDB's event thread prints late), and on the live Debian 3.11 `threads` scenario, through a
// stop that the command thread handles (synchronous `process continue`) and one that LLDB's
// event thread handles (asynchronous), after which `bt` still shows the Python frames.
class ProviderChanges : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    std::string why;
    lldb_ = FindLldb(GetParam(), &why);
    if (!lldb_) GTEST_SKIP() << why;
    std::string error;
    install_ = Installed(&error);
    ASSERT_NE(install_, nullptr) << error;
  }

  // The thread status lines (`* thread #1, ... stop reason = ...`) of `commands`'s output, and
  // the output itself in *out.
  size_t StatusLines(const Target& target, const std::vector<std::string>& commands,
                     bool provider, std::string* out) {
    std::map<std::string, std::string> env;
    if (!provider) env["PYUNWIND_LLDB_FRAME_PROVIDER"] = "0";
    RunResult r = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, target, commands), env);
    EXPECT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
    *out = r.out + r.err;
    static const std::regex status(R"(^[* ] thread #\d+, .*stop reason = )");
    size_t n = 0;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) n += std::regex_search(line, status);
    return n;
  }

  void ExpectNoExtraStatus(const Target& target, const std::vector<std::string>& commands,
                           bool expect_python_frames) {
    std::string with_out, without_out;
    const size_t with = StatusLines(target, commands, true, &with_out);
    const size_t without = StatusLines(target, commands, false, &without_out);
    EXPECT_EQ(with, without) << "with the provider:\n" << with_out << "\nwithout:\n"
                             << without_out;
    EXPECT_TRUE(LinesContaining(with_out, "pyunwind: frame provider changed").empty())
        << with_out;
    if (expect_python_frames) {
      EXPECT_GE(LinesContaining(with_out, "[synthetic]").size(), 1u) << with_out;
    }
  }

  std::optional<Lldb> lldb_;
  const Install* install_ = nullptr;
};

TEST_P(ProviderChanges, PrintNoStatusAfterPluginLoadOnACore) {
  if (IsSkipped()) return;
  const SourceCase source{"threads", "3.12.6", false, Debugger::kLldb};
  if (!FileExists(source.CoreDir() + "/core.xz")) GTEST_SKIP() << "no fixture core " << source.CoreDir();
  Target target;
  target.core = TempDir() + "/threads-3.12.6.core";
  std::string error;
  ASSERT_TRUE(DecompressXz(source.CoreDir() + "/core.xz", target.core, &error)) << error;
  ExpectNoExtraStatus(target, {"script import time; time.sleep(1)", "bt"}, true);
}

TEST_P(ProviderChanges, PrintNoStatusAtAStopOfEitherThread) {
  if (IsSkipped()) return;
  std::string error;
  auto scenario = Scenario::Start(kDebianPython, "threads", &error);
  if (!scenario) PYU_SKIP_OR_FAIL(error);
  Target target;
  target.pid = scenario->pid();
  // The stop comes from SendAsyncInterrupt on a timer, as a user's Ctrl-C would.
  const std::string interrupt_soon =
      "script import threading, time; threading.Timer(1.5, "
      "lldb.debugger.GetSelectedTarget().GetProcess().SendAsyncInterrupt).start()";
  for (const bool asynchronous : {false, true}) {
    SCOPED_TRACE(asynchronous ? "asynchronous stop" : "synchronous stop");
    std::vector<std::string> commands = {interrupt_soon};
    if (asynchronous) commands.push_back("script lldb.debugger.SetAsync(True)");
    commands.push_back("process continue");
    commands.push_back(asynchronous ? "script time.sleep(3)" : "script time.sleep(1)");
    commands.insert(commands.end(), {"bt", "detach"});
    ExpectNoExtraStatus(target, commands, true);
  }
}

INSTANTIATE_TEST_SUITE_P(Lldb, ProviderChanges, ::testing::Values(22, 23),
                         [](const auto& info) { return "Lldb" + std::to_string(info.param); });

// What the provider decided about each target's modules (the module's own record).
constexpr char kHasPython[] =
    "script print('has_python:', sorted(set(str(v) for v in "
    "__import__('pyunwind_lldb_frames')._has_python.values())))";

// Stops of a program without Python cost nothing: its module files say so (no libpython, no
// _PyRuntime in a string table), decided once, and the plugin is not asked to look (which
// would scan the process's writable memory at every stop). A Python process is read.
TEST_F(Lldb22, ProgramWithoutPythonIsNotReadAtItsStops) {
  Prepare(true);
  if (!Ready()) return;
  std::string error;
  ProcessOptions options;
  options.argv = {"sleep", "600"};
  auto sleeper = Process::Spawn(options, &error);
  ASSERT_TRUE(sleeper) << error;
  Target not_python;
  not_python.pid = sleeper->pid();
  RunResult r = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, not_python, {"bt all", kHasPython}));
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_EQ(LinesContaining(r.out, "has_python: ['False']").size(), 1u) << r.out;
  EXPECT_TRUE(LinesContaining(r.out, "[synthetic]").empty()) << r.out;
  RunResult p = RunBatch(*lldb_, LldbArgv(*lldb_, *install_, target_, {kHasPython}));
  ASSERT_TRUE(p.exited && p.exit_code == 0) << p.Describe();
  EXPECT_EQ(LinesContaining(p.out, "has_python: ['True']").size(), 1u) << p.out;
}

TEST_F(Lldb22, DapCallStackShowsPythonFramesOfLiveProcess) { ExpectDapCallStacksHoldTruth(true); }

TEST_F(Lldb22, DapCallStackShowsPythonFramesOfFixtureCore) { ExpectDapCallStacksHoldTruth(false); }

// A command typed in an editor's debug console: lldb-dap runs it through
// SBCommandInterpreter::HandleCommand from C++ (no Python on the stack) and answers with the
// result's text, which must hold it all (command_line_output.h), none of it sent as console output.
TEST_F(Lldb22, DapConsoleCommandAnswersWithItsText) {
  Prepare(true);
  if (!Ready()) return;
  std::string raw, error;
  DapStacks(*lldb_, *install_, target_, &raw, &error, "py-bt --all");
  ASSERT_EQ(error, "");
  const json evaluate = json::parse(raw).at("evaluate");
  const std::string result = evaluate.at("result").get<std::string>();
  EXPECT_EQ(Occurrences(result, "Traceback (most recent call first):"), truth_.at("threads").size())
      << raw;
  EXPECT_EQ(evaluate.at("output").get<std::string>().find("Traceback"), std::string::npos) << raw;
}

// An LLDB without frame providers (14, Debian's default, and 19): `plugin load` alone says
// nothing, the bt is LLDB's own, the commands work; imported by hand, the script says once
// that this LLDB has no frame providers.
class WithoutFrameProviders : public ::testing::TestWithParam<int> {};

TEST_P(WithoutFrameProviders, PluginLoadIsSilentAndBtUnchanged) {
  std::string why;
  auto lldb = FindLldb(GetParam(), &why);
  if (!lldb) GTEST_SKIP() << why;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto scenario = Scenario::Start(kDebianPython, "threads", &error);
  if (!scenario) PYU_SKIP_OR_FAIL(error);
  Target target;
  target.pid = scenario->pid();
  RunResult r = RunBatch(*lldb, LldbArgv(*lldb, *install, target, {"bt all", "py-bt"}));
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_TRUE(LinesContaining(r.out, "[synthetic]").empty()) << r.out;
  EXPECT_TRUE(LinesContaining(r.out + r.err, "pyunwind:").empty()) << r.out << r.err;
  EXPECT_TRUE(LinesContaining(r.out + r.err, "error").empty()) << r.out << r.err;
  EXPECT_GE(LinesContaining(r.out, "Traceback").size(), 1u) << r.out;  // py-bt works
  // -v says it, once.
  RunResult v = RunBatch(*lldb, LldbArgv(*lldb, *install, target, {"py-bt -v --no-source"}));
  ASSERT_TRUE(v.exited && v.exit_code == 0) << v.Describe();
  EXPECT_EQ(LinesContaining(v.out, "warning: this LLDB has no frame providers (LLDB 22 and "
                                   "later): its bt shows no Python frames; py-bt --native does")
                .size(),
            1u)
      << v.out;

  RunResult h = RunBatch(*lldb, LldbArgv(*lldb, *install, target, {ImportByHand(*install), "bt all"}));
  ASSERT_TRUE(h.exited && h.exit_code == 0) << h.Describe();
  EXPECT_TRUE(LinesContaining(h.out, "[synthetic]").empty()) << h.out;
  EXPECT_EQ(LinesContaining(h.out + h.err, "this LLDB has no frame providers").size(), 1u)
      << h.out << h.err;
}

INSTANTIATE_TEST_SUITE_P(Lldb, WithoutFrameProviders, ::testing::Values(14, 19),
                         [](const auto& info) { return "Lldb" + std::to_string(info.param); });

}  // namespace
}  // namespace pyunwind_e2e

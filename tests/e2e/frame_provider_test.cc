// Issue 16: LLDB 22's frame providers put each Python frame into LLDB's own `bt`
// (lldb_plugin/pyunwind_lldb_frames.py, experimental, imported after the plugin): on a live Debian python3.11
// `threads` scenario every truth thread's Python frames appear in one thread's `bt all`, in
// order, each run of them right after an eval-loop frame (_PyEval_EvalFrameDefault), and
// `frame select N` on one says where it is; on the 3.12.6 threads fixture core (no
// executable: LLDB cannot unwind past frame 0, so they come after the native frames); LLDB 19
// (no frame providers) shows its own `bt` unchanged and says so once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
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
  bool selected = false;
};

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The thread blocks of `bt all` output.
std::vector<ThreadBlock> ParseBacktrace(const std::string& out) {
  static const std::regex thread_re(R"(^(\*| ) thread #\d+)");
  static const std::regex python_re(R"(frame #(\d+): (.*) at ([^ ]+):(\d+) \[synthetic\]$)");
  std::vector<ThreadBlock> blocks;
  bool previous_eval_loop = false, previous_python = false;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    start = end + 1;
    std::smatch m;
    if (std::regex_search(line, m, thread_re)) {
      blocks.emplace_back();
      blocks.back().selected = m[1] == "*";
      previous_eval_loop = previous_python = false;
      continue;
    }
    if (blocks.empty() || line.find("frame #") == std::string::npos) continue;
    if (std::regex_search(line, m, python_re)) {
      ThreadBlock& b = blocks.back();
      if (!previous_python && !previous_eval_loop) b.each_run_after_eval_loop = false;
      b.python.push_back({m[2], m[3], std::stoi(m[4])});
      b.python_numbers.push_back(std::stoi(m[1]));
      previous_python = true;
      previous_eval_loop = false;
    } else {
      previous_eval_loop = line.find("_PyEval_EvalFrameDefault") != std::string::npos;
      previous_python = false;
    }
  }
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
    }
  }
  return report;
}

std::vector<std::string> LldbArgv(const Lldb& lldb, const Install& install, const Target& target,
                                  const std::vector<std::string>& commands) {
  std::vector<std::string> argv = {lldb.path, "--batch", "--no-lldbinit"};
  if (!target.core.empty()) argv.insert(argv.end(), {"-c", target.core});
  // LLDB prints a new stop on its event thread while batch mode goes on with the next
  // command; LLDB 22.1 can deadlock when a frame provider is made on one thread while the
  // other holds the thread list (lldb_plugin/README.md). A user types after the stop is
  // printed; here a second does it.
  const std::string dir = install.lldb_plugin.substr(0, install.lldb_plugin.rfind('/'));
  argv.insert(argv.end(), {"-o", "script import time; time.sleep(1)", "-o",
                           "plugin load " + install.lldb_plugin, "-o",
                           "command script import " + dir + "/pyunwind_lldb_frames.py"});
  for (const auto& c : commands) argv.insert(argv.end(), {"-o", c});
  if (target.pid) argv.insert(argv.end(), {"-p", std::to_string(target.pid)});
  return argv;
}

RunResult RunBatch(const Lldb& lldb, const std::vector<std::string>& argv) {
  std::map<std::string, std::string> env = DebuggerEnv();
  for (const auto& [k, v] : lldb.env) env[k] = v;
  return RunCommand(argv, 120, env);
}

// LLDB 22.1.8 can hang with the provider registered (lldb_plugin/README.md): about one
// batch run in four, live or from a core (a CI run of the core case timed out). The
// provider is experimental and opt-in; so are its tests, never a flaky CI.
constexpr char kProviderSkip[] =
    "LLDB 22.1.8 hangs in some runs with the frame provider (lldb_plugin/README.md); "
    "PYUNWIND_TEST_FRAME_PROVIDER=1 runs this";
bool ProviderTestsWanted() { return std::getenv("PYUNWIND_TEST_FRAME_PROVIDER") != nullptr; }

TEST(FrameProvider, Lldb22BtShowsPythonFramesOfLiveProcess) {
  if (!ProviderTestsWanted()) GTEST_SKIP() << kProviderSkip;
  std::string why;
  auto lldb = FindLldb(22, &why);
  if (!lldb) GTEST_SKIP() << why;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto scenario = Scenario::Start(kDebianPython, "threads", &error);
  if (!scenario) PYU_SKIP_OR_FAIL(error);
  Target target;
  target.pid = scenario->pid();

  RunResult r = RunBatch(*lldb, LldbArgv(*lldb, *install, target, {"bt all"}));
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  const auto blocks = ParseBacktrace(r.out);
  EXPECT_EQ(CompareBacktrace(scenario->truth(), blocks, true), "") << r.out;

  // frame select on the selected thread's first Python frame says where it is.
  const ThreadBlock* selected = nullptr;
  for (const auto& b : blocks) {
    if (b.selected) selected = &b;
  }
  ASSERT_TRUE(selected && !selected->python.empty()) << r.out;
  const int n = selected->python_numbers.front();
  const PythonLine& f = selected->python.front();
  RunResult s = RunBatch(*lldb, LldbArgv(*lldb, *install, target, {"frame select " + std::to_string(n)}));
  ASSERT_TRUE(s.exited && s.exit_code == 0) << s.Describe();
  EXPECT_FALSE(LinesContaining(s.out, "frame #" + std::to_string(n) + ": " + f.qualname + " at " +
                                           f.file + ":" + std::to_string(f.line))
                   .empty())
      << s.out;
}

TEST(FrameProvider, Lldb22BtShowsPythonFramesOfFixtureCore) {
  if (!ProviderTestsWanted()) GTEST_SKIP() << kProviderSkip;
  std::string why;
  auto lldb = FindLldb(22, &why);
  if (!lldb) GTEST_SKIP() << why;
  const SourceCase source{"threads", "3.12.6", false, Debugger::kLldb};
  if (!FileExists(source.CoreDir() + "/core.xz")) GTEST_SKIP() << "no fixture core " << source.CoreDir();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  Target target;
  target.core = TempDir() + "/threads-3.12.6.core";
  ASSERT_TRUE(DecompressXz(source.CoreDir() + "/core.xz", target.core, &error)) << error;
  const json truth = json::parse(ReadFile(source.CoreDir() + "/truth.json"));

  RunResult r = RunBatch(*lldb, LldbArgv(*lldb, *install, target, {"bt all"}));
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  // No executable here: LLDB unwinds no eval-loop frame, so the frames come after its own.
  EXPECT_EQ(CompareBacktrace(truth, ParseBacktrace(r.out), false), "") << r.out;
}

TEST(FrameProvider, LldbWithoutFrameProvidersKeepsItsBt) {
  std::string why;
  auto lldb = FindLldb(19, &why);
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
  EXPECT_EQ(LinesContaining(r.out + r.err, "this LLDB has no frame providers").size(), 1u)
      << r.out << r.err;
}

}  // namespace
}  // namespace pyunwind_e2e

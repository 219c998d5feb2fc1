// The one plugin binary of `//:install` in every LLDB 14..23 (Debian's LLDB 14, the LLDB 15,
// 16, 19, 22 of Debian 12 and 21, 23 of Debian unstable that .ci/fetch-lldbs unpacks), against
// the truth:
//   * `py-bt --all --json` on a live Debian /usr/bin/python3.11 threads scenario,
//   * `py-bt --all --json` on the 3.12.6 and 3.15.2 threads fixture cores (no executable),
//   * `py-tasks --json` on the 3.14.7 asyncio_tree fixture core,
//   * the first three also in Debian 11's own LLDB 16 on Debian 11's own glibc 2.31 (the
//     oldest C library the plugin is built for: toolchain/README.md),
//   * `py-bt --all --json` on the 3.15.2 scale core, timed in LLDB 14 and 23 (printed as
//     "timing: ..."),
//   * LLDB inside Python (`import lldb`): `plugin load` through HandleCommand, and two
//     SBDebuggers running py-bt at once from two threads,
// and an LLDB the plugin cannot serve (LLDB 13; each major with one extra required SB symbol
// that no LLDB has, through sb_api.h's test hook) gets one line at `plugin load` and keeps
// running. A case whose LLDB cannot be had here is skipped, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/lldb_versions.h"
#include "tests/e2e/scenario_sources.h"
#include "tests/e2e/truth_checks.h"

namespace pyunwind_e2e {
namespace {

enum class Check { kPyBt, kPyTasks, kScaleTimed };

struct VersionCase {
  SourceCase source;
  Check check;
  int major;
  // Debian 11's own LLDB on Debian 11's own glibc 2.31 (FindBullseyeLldb), the oldest C library
  // the plugin is built for.
  bool bullseye = false;
};

void PrintTo(const VersionCase& c, std::ostream* os) {
  *os << "LLDB " << c.major << (c.bullseye ? " of Debian 11" : "") << ", ";
  PrintTo(c.source, os);
}

std::string CaseName(const ::testing::TestParamInfo<VersionCase>& info) {
  const SourceCase& s = info.param.source;
  return SanitizeName("lldb" + std::to_string(info.param.major) +
                      (info.param.bullseye ? "_bullseye_" : "_") +
                      (s.live ? "live_" : "core_") + s.source + "_" + s.scenario);
}

// Sources outer, majors inner: a fixture core is decompressed once for all majors.
std::vector<VersionCase> Cases() {
  std::vector<ReleaseSource> sources = ReleaseSources(Debugger::kLldb);
  sources.push_back({{"scale", "3.15.2", false, Debugger::kLldb}});
  std::vector<VersionCase> cases;
  for (const ReleaseSource& s : sources) {
    const bool scale = s.source.scenario == "scale";
    const Check check = s.tasks ? Check::kPyTasks : scale ? Check::kScaleTimed : Check::kPyBt;
    for (int major : TestedLldbMajors()) cases.push_back({s.source, check, major});
    if (!scale) cases.push_back({s.source, check, 16, true});
  }
  return cases;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

class LldbVersions : public ::testing::TestWithParam<VersionCase> {
 public:
  static void TearDownTestSuite() { Sources::ForgetAll(); }
};

TEST_P(LldbVersions, MatchesTruth) {
  const VersionCase& c = GetParam();
  std::string why;
  const std::optional<Lldb> lldb = c.bullseye ? FindBullseyeLldb(c.major, &why)
                                              : FindLldb(c.major, &why);
  if (!lldb) GTEST_SKIP() << why;
  const Install* install = nullptr;
  const Source* source = nullptr;
  FindInstallAndSource(c.source, &install, &source);
  if (source == nullptr) return;
  const Target target = TargetOf(c.source, *source);

  const std::string command = c.check == Check::kPyTasks ? "py-tasks --json" : "py-bt --all --json";
  RunResult r = RunLldb(*lldb, *install, target, {command});
  ASSERT_NO_FATAL_FAILURE(ExpectJsonAsTruth(r, command, lldb->version, source->truth));

  // Timed in the oldest and the newest LLDB only: a timing is nine more LLDB runs (the
  // per-major figures of docs/support.md come from the runs lldb_plugin/README.md lists).
  const bool timed = !c.bullseye && (c.major == TestedLldbMajors().front() ||
                                      c.major == TestedLldbMajors().back());
  if (c.check == Check::kScaleTimed && timed) {
    // The same LLDB opening the same core and loading the plugin with no py-bt, with one
    // `py-bt --all` and with eleven: the first py-bt (which also finds the interpreter in the
    // core) is one - none, each later one (eleven - one) / 10. Best of three of each, on a
    // shared machine.
    const std::vector<std::string> once = {"py-bt --all"};
    const std::vector<std::string> eleven(11, "py-bt --all");
    double none_s = 1e9, once_s = 1e9, eleven_s = 1e9;
    for (int i = 0; i < 3; ++i) {
      for (auto [commands, best] : {std::pair{std::vector<std::string>{}, &none_s},
                                    std::pair{once, &once_s}, std::pair{eleven, &eleven_s}}) {
        const auto t0 = std::chrono::steady_clock::now();
        RunResult t = RunLldb(*lldb, *install, target, commands);
        *best = std::min(*best, Seconds(std::chrono::steady_clock::now() - t0));
        ASSERT_TRUE(t.exited && t.exit_code == 0) << t.Describe();
      }
    }
    const double first_ms = (once_s - none_s) * 1000, later_ms = (eleven_s - once_s) * 100;
    std::cout << "timing: " << lldb->version << ", scale core " << c.source.source
              << ": lldb --batch -c CORE + plugin load " << static_cast<int>(none_s * 1000)
              << " ms; first py-bt --all " << static_cast<int>(first_ms)
              << " ms; each later py-bt --all " << static_cast<int>(later_ms) << " ms\n";
    RecordProperty("first_py_bt_all_ms", std::to_string(static_cast<int>(first_ms)));
    RecordProperty("later_py_bt_all_ms", std::to_string(static_cast<int>(later_ms)));
  }
}

INSTANTIATE_TEST_SUITE_P(Majors, LldbVersions, ::testing::ValuesIn(Cases()), CaseName);

// One line at `plugin load`, no pyunwind command, and LLDB runs the next command and exits
// normally.
void ExpectRefusedInOneLine(const Lldb& lldb, const std::map<std::string, std::string>& env,
                            const std::string& because) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  RunResult r = RunLldb(lldb, *install, Target{}, {"version"}, 120, env);
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  const std::string output = r.out + r.err;
  const std::vector<std::string> lines = LinesContaining(output, "pyunwind");
  std::vector<std::string> said;  // the lines other than LLDB's echo of `plugin load`
  for (const std::string& line : lines) {
    if (line.find("plugin load") == std::string::npos) said.push_back(line);
  }
  ASSERT_EQ(said.size(), 1u) << "expected exactly one pyunwind line\n" << r.Describe();
  EXPECT_EQ(said[0].rfind("error: pyunwind: not loaded: this LLDB (" + lldb.version + ")", 0), 0u)
      << said[0];
  EXPECT_NE(said[0].find(because), std::string::npos) << said[0];
  // LLDB kept running: it ran `version` after `plugin load`.
  EXPECT_FALSE(LinesContaining(r.out, lldb.version).empty()) << r.Describe();
}

class LldbRefuses : public ::testing::TestWithParam<int> {};

TEST_P(LldbRefuses, MissingSbCallGetsOneLine) {
  std::string why;
  const std::optional<Lldb> lldb = FindLldb(GetParam(), &why);
  if (!lldb) GTEST_SKIP() << why;
  ExpectRefusedInOneLine(*lldb,
                         {{"PYUNWIND_LLDB_REQUIRE_SYMBOLS", "_ZN4lldb10SBDebugger21NoSuchCallForPyunwindEv"}},
                         "lacks lldb::SBDebugger::NoSuchCallForPyunwind(), which pyunwind calls");
}

INSTANTIATE_TEST_SUITE_P(Majors, LldbRefuses, ::testing::ValuesIn(TestedLldbMajors()),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "lldb" + std::to_string(info.param);
                         });

// The same ~/.lldbinit line, `plugin load DIR/libpyunwind_lldb.so`, serves every major.
class LldbInit : public ::testing::TestWithParam<int> {};

TEST_P(LldbInit, OneLldbinitLineForEveryMajor) {
  std::string why;
  const std::optional<Lldb> lldb = FindLldb(GetParam(), &why);
  if (!lldb) GTEST_SKIP() << why;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const std::string home = TempDir() + "/home-lldbinit";
  ASSERT_TRUE(RunCommand({"mkdir", "-p", home}, 10).exit_code == 0);
  {
    std::ofstream init(home + "/.lldbinit");
    init << "plugin load " << install->lldb_plugin << "\n";
  }
  std::map<std::string, std::string> env = DebuggerEnv();
  for (const auto& [k, v] : lldb->env) env[k] = v;
  env["HOME"] = home;
  RunResult r = RunCommand({lldb->path, "--batch", "-o", "help py-bt"}, 120, env);
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_FALSE(LinesContaining(r.out, "Print the Python stack").empty()) << r.Describe();
  EXPECT_TRUE(LinesContaining(r.out + r.err, "not a known command").empty()) << r.Describe();
  EXPECT_TRUE(LinesContaining(r.out + r.err, "pyunwind: not loaded").empty()) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Majors, LldbInit, ::testing::ValuesIn(TestedLldbMajors()),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "lldb" + std::to_string(info.param);
                         });

// LLDB inside Python (`import lldb`, which loads liblldb with RTLD_LOCAL), with the LLDB of the
// parameter's major; skipped where it or its Python package cannot be had.
class LldbInPython : public ::testing::TestWithParam<int> {
 public:
  static void TearDownTestSuite() { Sources::ForgetAll(); }

 protected:
  void SetUp() override {
    std::string why;
    lldb_ = FindLldb(GetParam(), &why);
    if (!lldb_) GTEST_SKIP() << why;
    if (lldb_->python_dir.empty()) {
      GTEST_SKIP() << "no Python package (python3-lldb) for " << lldb_->version;
    }
  }

  // What Debian's python3.11 runs with to `import lldb` of this LLDB.
  std::map<std::string, std::string> PythonEnv() const {
    std::map<std::string, std::string> env = DebuggerEnv();
    for (const auto& [k, v] : lldb_->env) env[k] = v;
    env["PYTHONPATH"] = lldb_->python_dir;
    return env;
  }

  std::optional<Lldb> lldb_;
};

constexpr const char* kPythonDriver = R"(
import sys
import lldb
debugger = lldb.SBDebugger.Create()
debugger.SetAsync(False)
interpreter = debugger.GetCommandInterpreter()
for command in sys.argv[1:]:
    result = lldb.SBCommandReturnObject()
    interpreter.HandleCommand(command, result)
    sys.stdout.write(result.GetOutput() or "")
    sys.stdout.write(result.GetError() or "")
)";

// `plugin load` through HandleCommand, then py-bt --all --json on the 3.15.2 threads core.
TEST_P(LldbInPython, PluginLoadThroughHandleCommand) {
  const SourceCase core{"threads", "3.15.2", false, Debugger::kLldb};
  if (!FileExists(core.CoreDir() + "/core.xz")) GTEST_SKIP() << "no fixture core " << core.CoreDir();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Source* source = Sources::Of(core, &error);
  ASSERT_NE(source, nullptr) << error;

  RunResult r = RunCommand({kDebianPython, "-c", kPythonDriver, "target create --core " + source->core,
                            "plugin load " + install->lldb_plugin, "py-bt --all --json"},
                           180, PythonEnv());
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_TRUE(LinesContaining(r.out, "pyunwind: not loaded").empty()) << r.Describe();
  auto doc = ExtractJson(r.out, &error);
  ASSERT_TRUE(doc) << error << "\n" << r.Describe();
  EXPECT_EQ(CompareWithTruth(source->truth, *doc), "") << r.command;
}

// Two SBDebuggers in one process (lldb-dap serving two sessions, an IDE's LLDB), each with its
// own core, running py-bt --all at the same time from two threads: the plugin's commands keep
// one state per process (core/session/kept_state.h), which two commands at once freed under
// each other (the process died of SIGSEGV in every run before). Each debugger's runs print what
// its lone run printed, and that is the truth of its core.
constexpr const char* kTwoDebuggersDriver = R"(
import sys, threading
import lldb
plugin, rounds, out_dir, cores = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]

def run(debugger, command):
    result = lldb.SBCommandReturnObject()
    debugger.GetCommandInterpreter().HandleCommand(command, result)
    return (result.GetOutput() or "") + (result.GetError() or "")

debuggers = []
for core in cores:
    debugger = lldb.SBDebugger.Create(False)
    debugger.SetAsync(False)
    run(debugger, "target create --core " + core)
    run(debugger, "plugin load " + plugin)
    debuggers.append(debugger)
lone = [run(d, "py-bt --all --json") for d in debuggers]
for i, text in enumerate(lone):
    with open("%s/lone_%d.txt" % (out_dir, i), "w") as f:
        f.write(text)
differing = [0] * len(debuggers)

def repeat(i):
    for _ in range(rounds):
        if run(debuggers[i], "py-bt --all --json") != lone[i]:
            differing[i] += 1

threads = [threading.Thread(target=repeat, args=(i,)) for i in range(len(debuggers))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("runs differing from the lone run:", " ".join(str(n) for n in differing))
)";

TEST_P(LldbInPython, TwoDebuggersAtOnce) {
  const SourceCase cores[] = {{"threads", "3.15.2", false, Debugger::kLldb},
                              {"threads", "3.12.6", false, Debugger::kLldb}};
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  std::vector<const Source*> sources;
  for (const SourceCase& core : cores) {
    if (!FileExists(core.CoreDir() + "/core.xz")) GTEST_SKIP() << "no fixture core " << core.CoreDir();
    sources.push_back(Sources::Of(core, &error));
    ASSERT_NE(sources.back(), nullptr) << error;
  }

  const std::string out_dir = TempDir() + "/two-debuggers-" + std::to_string(GetParam());
  RunResult made = RunCommand({"mkdir", "-p", out_dir}, 30);
  ASSERT_TRUE(made.exited && made.exit_code == 0) << made.Describe();
  RunResult r = RunCommand({kDebianPython, "-c", kTwoDebuggersDriver, install->lldb_plugin, "25",
                            out_dir, sources[0]->core, sources[1]->core},
                           300, PythonEnv());
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_FALSE(LinesContaining(r.out, "runs differing from the lone run: 0 0").empty())
      << r.Describe();
  for (size_t i = 0; i < sources.size(); ++i) {
    SCOPED_TRACE(cores[i].source);
    auto doc = ExtractJson(ReadFile(out_dir + "/lone_" + std::to_string(i) + ".txt"), &error);
    ASSERT_TRUE(doc) << error;
    EXPECT_EQ(CompareWithTruth(sources[i]->truth, *doc), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Majors, LldbInPython, ::testing::ValuesIn(TestedLldbMajors()),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "lldb" + std::to_string(info.param);
                         });

TEST(LldbTooOld, Lldb13GetsOneLine) {
  std::string why;
  const std::optional<Lldb> lldb = FindLldb(13, &why);
  if (!lldb) GTEST_SKIP() << why;
  ExpectRefusedInOneLine(*lldb, {}, "is older than LLDB 14, the oldest pyunwind supports");
}

}  // namespace
}  // namespace pyunwind_e2e

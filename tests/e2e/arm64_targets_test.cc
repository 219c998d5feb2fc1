// arm64 processes and cores read by this machine's x86-64 debuggers: threads.py runs under
// Debian 12's arm64 python3.11 in qemu-user (`qemu-aarch64-static -L SYSROOT`, the sysroot
// .ci/fetch-arm64-python unpacks), and `py-bt --all --json` must equal the truth it writes:
//   - on its core (qemu writes one when the guest dies of SIGABRT), in gdb-multiarch and
//     LLDB 14, with the executable (and GDB's `set sysroot`) and without: qemu's core holds no
//     bytes of the read-only file mappings, which GDB without the executable reads as zeros
//     (gdb_bridge/gdb_listings.h LeftOutOfCore);
//   - live through qemu's gdbstub (`qemu-aarch64-static -g PORT`), stopped by a signal to the
//     guest, with and without the executable (the stub lists no memory regions: the
//     executable's segments come from its program headers, which GDB's `info auxv` locates,
//     and in LLDB the auxiliary vector on the main thread's stack);
//   - live while it runs: one line saying so (qemu's stub ignores GDB's interrupt, and GDB
//     then refuses to list its threads).
// Debian 12's python3.11 throughout; also its debug build (python3.11d, cores) and Debian 13's
// python3.13 (cores and live) where `.ci/fetch-arm64-python debug trixie` unpacked them. One
// core is made per build, scenario and test binary.
// The same cores also in Debian 12's arm64 GDB and LLDB 14, themselves run under qemu-user
// (.ci/fetch-arm64-debuggers), with pyunwind's arm64 build (//:tarball_arm64, unpacked and
// installed with its install.sh): what a user of an arm64 machine runs.
// `calling` (what a frame calls in C) on a core of tests/data/calls.py, with the executable, in
// all four debuggers: its names are C strings in the executable's read-only data, which the
// core leaves out (LLDB reads them from the executable's file: read_only_sections.h).
// Skipped, saying why, without qemu-user-static, gdb-multiarch, the arm64 sysroot or the arm64
// debuggers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/truth_checks.h"

namespace pyunwind_e2e {
namespace {

constexpr const char* kQemu = "/usr/bin/qemu-aarch64-static";
constexpr const char* kGdbMultiarch = "/usr/bin/gdb-multiarch";
constexpr const char* kLldbArch = "aarch64-unknown-linux-gnu";
constexpr const char* kArm64Gdb = "/usr/bin/gdb";
constexpr const char* kArm64Lldb = "/usr/lib/llvm-14/bin/lldb";

// The interpreters, each in the sysroot of its Debian release (.ci/fetch-arm64-python TARGET):
// Debian 12's 3.11.2, its debug build (python3.11-dbg: Py_DEBUG), Debian 13's 3.13.5.
enum class Build { k311, k311Debug, k313 };
struct BuildInfo {
  const char* suite;
  const char* interpreter;
  const char* fetch_target;
  const char* cell_name;
};
BuildInfo InfoOf(Build b) {
  switch (b) {
    case Build::k311: return {"bookworm", "python3.11", "bookworm", "3_11"};
    case Build::k311Debug: return {"bookworm", "python3.11d", "debug", "3_11d"};
    case Build::k313: return {"trixie", "python3.13", "trixie", "3_13"};
  }
  return {"", "", "", ""};
}

// The arm64 sysroot of `build`, or "" and *why where it cannot be used.
std::string Sysroot(Build build, std::string* why) {
  const char* cache = std::getenv("PYUNWIND_ARM64_PYTHON_CACHE");
  const BuildInfo info = InfoOf(build);
  const std::string dir =
      std::string(cache && *cache ? cache : "/var/cache/pyunwind-arm64-python") + "/" + info.suite;
  if (!FileExists(kQemu)) {
    *why = std::string("no ") + kQemu + " (package qemu-user-static)";
  } else if (!FileExists(dir + "/.complete") ||
             !FileExists(dir + "/usr/bin/" + info.interpreter)) {
    *why = std::string("no arm64 ") + info.interpreter + " in " + dir +
           " (.ci/fetch-arm64-python " + info.fetch_target + ")";
  } else {
    return dir;
  }
  return "";
}

std::string Python(const std::string& sysroot, Build build = Build::k311) {
  return sysroot + "/usr/bin/" + InfoOf(build).interpreter;
}

// The tree .ci/fetch-arm64-debuggers unpacks Debian 12's arm64 GDB and LLDB 14 into (each run
// as `qemu-aarch64-static -L TREE TREE/PROGRAM`), or "" and *why where they are not there.
std::string Arm64Debuggers(std::string* why) {
  const char* cache = std::getenv("PYUNWIND_ARM64_DEBUGGER_CACHE");
  const std::string dir =
      cache && *cache ? cache : "/var/cache/pyunwind-arm64-debuggers/bookworm";
  if (FileExists(dir + "/.complete") && FileExists(dir + kArm64Gdb) &&
      FileExists(dir + kArm64Lldb)) {
    return dir;
  }
  *why = "no arm64 GDB and LLDB in " + dir + " (.ci/fetch-arm64-debuggers)";
  return "";
}

// pyunwind's arm64 build as a user of an arm64 machine installs it: //:tarball_arm64 unpacked
// and its install.sh run into the test's temp dir (once per test binary).
const Install* Arm64Installed(std::string* error) {
  static std::string install_error;
  static const std::unique_ptr<Install> install = []() -> std::unique_ptr<Install> {
    const std::string runfiles = RunfilesPath("");
    const std::string suffix = "-linux-arm64.tar.gz";  // pyunwind-VERSION-linux-arm64.tar.gz
    std::string tarball;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(runfiles, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("pyunwind-", 0) == 0 && name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        tarball = entry.path().string();
      }
    }
    if (tarball.empty()) {
      install_error = "no pyunwind-*-linux-arm64.tar.gz (//:tarball_arm64) in " + runfiles;
      return nullptr;
    }
    auto result = std::make_unique<Install>();
    result->dir = TempDir() + "/pyunwind-arm64-install";
    const std::string unpacked = TempDir() + "/pyunwind-arm64-tarball";
    std::filesystem::remove_all(unpacked, ec);
    std::filesystem::create_directories(unpacked, ec);
    RunResult r = RunCommand(
        {"sh", "-c", "tar -xzf \"$1\" -C \"$2\" && sh \"$2\"/pyunwind-*/install.sh \"$3\"", "sh",
         tarball, unpacked, result->dir},
        60, CleanEnv());
    result->lldb_plugin = result->dir + "/libpyunwind_lldb.so";
    result->gdb_script = result->dir + "/pyunwind-gdb.py";
    if (!r.exited || r.exit_code != 0 || !FileExists(result->lldb_plugin) ||
        !FileExists(result->gdb_script)) {
      install_error = "the arm64 tarball's install.sh did not install: " + r.Describe();
      return nullptr;
    }
    return result;
  }();
  if (!install) *error = install_error;
  return install.get();
}

// A scenario (tests/data/SCENARIO.py) under qemu-user, from a directory of its own (where qemu writes the guest's
// core) that holds a directory named `core`, so that the host's core of qemu itself (dumped
// after the guest's, kernel.core_pattern "core") is not written. `gdb_port`: qemu's gdbstub
// listens there and the guest waits for a debugger to start.
struct QemuScenario {
  std::unique_ptr<Process> process;
  std::string dir;
  std::string truth_path;
  json truth;
};

std::unique_ptr<QemuScenario> StartQemu(const std::string& sysroot, const std::string& python,
                                        const std::string& tag, int gdb_port, std::string* error,
                                        const std::string& scenario = "threads") {
  auto s = std::make_unique<QemuScenario>();
  s->dir = TempDir() + "/arm64-" + tag;
  std::error_code ec;
  std::filesystem::remove_all(s->dir, ec);  // a core or fifo of an earlier run
  std::filesystem::create_directories(s->dir + "/core", ec);
  if (ec) {
    *error = "cannot make " + s->dir + "/core: " + ec.message();
    return nullptr;
  }
  s->truth_path = s->dir + "/truth.json";
  std::string qemu = std::string("exec ") + kQemu;
  if (gdb_port) qemu += " -g " + std::to_string(gdb_port);
  ProcessOptions options;
  // The guest's core is written only within RLIMIT_CORE.
  options.argv = {"sh", "-c", "ulimit -c unlimited 2>/dev/null; cd \"$1\" && " + qemu +
                                  " -L \"$2\" \"$3\" \"$4\" \"$5\"",
                  "sh", s->dir, sysroot, python, ScenarioScript(scenario), s->truth_path};
  options.env = CleanEnv();
  for (const char* var : {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"}) options.env[var] = "";
  options.stdout_path = s->dir + "/stdout";
  options.stderr_path = s->dir + "/stderr";
  s->process = Process::Spawn(options, error);
  if (!s->process) return nullptr;
  return s;
}

// Waits (up to 90 s: the guest runs emulated) for the truth; false and *error if none came.
bool WaitForTruth(QemuScenario& s, std::string* error) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (!FileExists(s.truth_path)) {
    if (!s.process->Running() || std::chrono::steady_clock::now() > deadline) {
      *error = "the scenario under qemu wrote no truth: " + ReadFile(s.dir + "/stderr");
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  try {
    s.truth = json::parse(ReadFile(s.truth_path));
  } catch (const std::exception& e) {
    *error = std::string("truth: ") + e.what();
    return false;
  }
  WaitUntilMainThreadSettles(s.process->pid());
  return true;
}

// The guest's core of each build and scenario, made once per test binary: the scenario
// killed with SIGABRT once parked.
struct GuestCore {
  std::string path;
  json truth;
  std::string error;  // where it could not be made ("skip: " + why where it cannot be here)
};

const GuestCore& Core(const std::string& sysroot, Build build,
                      const std::string& scenario = "threads") {
  static std::map<std::pair<Build, std::string>, GuestCore> cores;
  const auto key = std::make_pair(build, scenario);
  if (cores.count(key)) return cores.at(key);
  GuestCore& c = cores[key];
  {
    const auto started = std::chrono::steady_clock::now();
    auto s = StartQemu(sysroot, Python(sysroot, build),
                       "core-" + scenario + "-" + InfoOf(build).cell_name, 0, &c.error, scenario);
    if (!s || !WaitForTruth(*s, &c.error)) return c;
    c.truth = s->truth;
    // Before the core, every guest thread but the one that spins by design (the truth's GIL
    // holder) parked, not only the main one: a recorder thread emulated under load was caught
    // still in write_truth. At most 5 s: a scenario with another running thread waits no more.
    std::set<pid_t> spinning;
    const std::string spinner = c.truth.value("gil_holder_role", "");
    for (const json& thread : c.truth.value("threads", json::array())) {
      if (!spinner.empty() && thread.value("role", "") == spinner) {
        spinning.insert(thread.value("native_id", 0));
      }
    }
    WaitUntilThreadsSettle(s->process->pid(), spinning, 5);
    kill(s->process->pid(), SIGABRT);
    if (!s->process->Wait(60)) {
      c.error = "qemu did not exit within 60 s of SIGABRT";
      return c;
    }
    for (const auto& entry : std::filesystem::directory_iterator(s->dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("qemu_", 0) == 0 && entry.path().extension() == ".core") {
        c.path = entry.path().string();
      }
    }
    if (c.path.empty()) {
      c.error = "skip: qemu wrote no core of the guest in " + s->dir +
                " (RLIMIT_CORE? it exited: " + std::to_string(s->process->term_signal()) + ")";
    }
    std::cerr << "arm64 core made in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
              << " s: " << c.path << "\n";
  }
  return c;
}

// A TCP port nobody here listens on, for qemu's gdbstub.
int FreePort(int offset) { return 43000 + static_cast<int>((getpid() * 5 + offset) % 15000); }

// Waits (up to 10 s) until something listens on 127.0.0.1/0.0.0.0:port (/proc/net/tcp), without
// connecting: qemu's gdbstub accepts one connection only.
bool Listening(int port) {
  char wanted[8];
  snprintf(wanted, sizeof wanted, ":%04X", port);
  for (int i = 0; i < 200; ++i) {
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
      std::ifstream in(table);
      std::string sl, local, remote, state;
      std::string line;
      while (std::getline(in, line)) {
        std::istringstream row(line);
        if (row >> sl >> local >> remote >> state && state == "0A" &&
            local.size() > 5 && local.substr(local.size() - 5) == wanted) {
          return true;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

struct Cell {
  Debugger debugger;
  bool with_executable;
  Build build = Build::k311;
  // Debian's arm64 GDB or LLDB under qemu with pyunwind's arm64 build, not this machine's.
  bool arm64_debugger = false;
};

std::string CellName(const Cell& c) {
  return std::string(DebuggerName(c.debugger)) + (c.arm64_debugger ? "_arm64" : "") + "_" +
         InfoOf(c.build).cell_name + (c.with_executable ? "_with_exe" : "_no_exe");
}
void PrintTo(const Cell& c, std::ostream* os) { *os << CellName(c); }
std::string NameOfCell(const ::testing::TestParamInfo<Cell>& info) { return CellName(info.param); }

// What a cell needs here: the sysroot, and for GDB gdb-multiarch (the arm64 debuggers for an
// arm64_debugger cell); else GTEST_SKIP. Then `install`: the pyunwind the cell's debugger loads.
#define PYU_ARM64_OR_SKIP(cell, sysroot, install)                                            \
  std::string why;                                                                          \
  const std::string sysroot = Sysroot((cell).build, &why);                                  \
  if (sysroot.empty()) GTEST_SKIP() << why;                                                 \
  if ((cell).arm64_debugger) {                                                              \
    if (Arm64Debuggers(&why).empty()) GTEST_SKIP() << why;                                  \
  } else if ((cell).debugger == Debugger::kGdb && !FileExists(kGdbMultiarch)) {             \
    GTEST_SKIP() << "no " << kGdbMultiarch << " (package gdb-multiarch)";                   \
  }                                                                                         \
  const Install* install = (cell).arm64_debugger ? Arm64Installed(&why) : Installed(&why);  \
  ASSERT_NE(install, nullptr) << why;

// The program part of the cell's debugger command line: this machine's gdb-multiarch or LLDB,
// or Debian's arm64 one under qemu.
std::vector<std::string> DebuggerProgram(const Cell& cell) {
  const char* program = cell.debugger == Debugger::kGdb ? kArm64Gdb : kArm64Lldb;
  if (!cell.arm64_debugger) return {cell.debugger == Debugger::kGdb ? kGdbMultiarch : "lldb"};
  std::string ignored;
  const std::string root = Arm64Debuggers(&ignored);
  return {kQemu, "-L", root, root + program};
}

// Runs a cell's debugger. Under qemu without the asan mode's preloads (x86-64 libraries the
// arm64 loader cannot load).
RunResult RunCell(const Cell& cell, const std::vector<std::string>& argv, double timeout_s) {
  return RunCommand(argv, timeout_s, cell.arm64_debugger ? CleanEnv() : DebuggerEnv());
}

// The debugger's argv opening `core` (or, with port, connecting to qemu's gdbstub), loading
// pyunwind, then `commands` (for LLDB live: run after the stop, -k, as batch mode stops at a
// signal).
std::vector<std::string> Argv(const Cell& cell, const Install& install, const std::string& sysroot,
                              const std::string& core, int port,
                              const std::vector<std::string>& commands) {
  const std::string python = Python(sysroot, cell.build);
  std::vector<std::string> argv = DebuggerProgram(cell);
  if (cell.debugger == Debugger::kGdb) {
    argv.insert(argv.end(), {"-batch", "-nx", "-ex", "source " + install.gdb_script});
    if (cell.with_executable) {
      argv.insert(argv.end(), {"-ex", "set sysroot " + sysroot, "-ex", "file " + python});
    }
    if (!core.empty()) argv.insert(argv.end(), {"-ex", "core-file " + core});
    if (port) argv.insert(argv.end(), {"-ex", "target remote 127.0.0.1:" + std::to_string(port)});
    for (const auto& c : commands) argv.insert(argv.end(), {"-ex", c});
    return argv;
  }
  argv.insert(argv.end(), {"--batch", "--no-lldbinit", "-o", "plugin load " + install.lldb_plugin});
  // The sysroot's libraries (LLDB's native unwind of a core stops at the first frame in a
  // library it has not loaded).
  if (cell.with_executable && !core.empty()) {
    argv.insert(argv.end(), {"-o", "platform select remote-linux --sysroot " + sysroot});
  }
  std::string create = std::string("target create --arch ") + kLldbArch;
  if (!core.empty()) create += " --core " + core;
  if (cell.with_executable) create += " " + python;
  if (cell.with_executable || !core.empty()) argv.insert(argv.end(), {"-o", create});
  if (port) {
    argv.insert(argv.end(), {"-o", "gdb-remote 127.0.0.1:" + std::to_string(port)});
    for (const auto& c : commands) {
      argv.insert(argv.end(), {c.rfind("process", 0) == 0 ? "-o" : "-k", c});
    }
  } else {
    for (const auto& c : commands) argv.insert(argv.end(), {"-o", c});
  }
  return argv;
}

void ExpectTruth(const RunResult& r, const json& truth) {
  ASSERT_TRUE(r.exited) << r.Describe();
  std::string error;
  auto doc = ExtractJson(r.out, &error);
  ASSERT_TRUE(doc) << error << "\n" << r.Describe();
  EXPECT_EQ(CompareWithTruth(truth, *doc), "") << r.command;
}

class Arm64Core : public ::testing::TestWithParam<Cell> {};

TEST_P(Arm64Core, PyBtAllJsonMatchesTruth) {
  const Cell& cell = GetParam();
  PYU_ARM64_OR_SKIP(cell, sysroot, install);
  const auto& core = Core(sysroot, cell.build);
  if (core.path.empty()) PYU_SKIP_OR_FAIL(core.error);
  RunResult r =
      RunCell(cell, Argv(cell, *install, sysroot, core.path, 0, {"py-bt --all --json"}), 180);
  ExpectTruth(r, core.truth);
}

// Every build in this machine's debuggers; the release builds also in Debian's arm64 ones.
std::vector<Cell> CoreCells() {
  std::vector<Cell> cells;
  for (Build build : {Build::k311, Build::k311Debug, Build::k313}) {
    for (Debugger debugger : {Debugger::kGdb, Debugger::kLldb}) {
      for (bool with_executable : {true, false}) {
        cells.push_back(Cell{debugger, with_executable, build});
        if (build != Build::k311Debug) cells.push_back(Cell{debugger, with_executable, build, true});
      }
    }
  }
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Qemu, Arm64Core, ::testing::ValuesIn(CoreCells()), NameOfCell);

// (Debian's arm64 GDB, emulated, takes 10-12 s for each of `calling`, `bt` and `py-bt --native`
// below; it passed them when they were cells here, and is left to py-bt --all --json on the
// cores and live, for CI's time.)

// What each frame of a core of calls.py calls, with the executable: the names are C strings in
// the executable's read-only data, which qemu's core leaves out; GDB reads them from the file
// it was given, and so does pyunwind in LLDB (lldb_plugin/read_only_sections.h).
class Arm64Calls : public ::testing::TestWithParam<Cell> {};

TEST_P(Arm64Calls, EachFrameCallsWhatTheProcessRecorded) {
  const Cell& cell = GetParam();
  PYU_ARM64_OR_SKIP(cell, sysroot, install);
  const auto& core = Core(sysroot, cell.build, "calls");
  if (core.path.empty()) PYU_SKIP_OR_FAIL(core.error);
  RunResult r = RunCell(cell,
                        Argv(cell, *install, sysroot, core.path, 0,
                             {"py-bt --all --json", "py-bt --all --no-source"}),
                        180);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  std::string error;
  const auto got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.Describe();
  const std::map<uint64_t, json> threads = ThreadsByNativeId(*got);
  size_t named = 0;
  size_t recorded = 0;
  for (const json& want : core.truth.at("threads")) {
    SCOPED_TRACE("thread " + want.at("role").get<std::string>());
    for (const json& name : want.at("calling")) recorded += name.is_null() ? 0 : 1;
    auto found = threads.find(want.at("native_id").get<uint64_t>());
    if (found == threads.end()) {
      ADD_FAILURE() << "missing";
      continue;
    }
    ExpectCallsAsTruth(found->second, want, r.out, &named);
  }
  EXPECT_EQ(recorded, 13u) << core.truth.dump(1);
  EXPECT_EQ(named, recorded);
}

INSTANTIATE_TEST_SUITE_P(Qemu, Arm64Calls,
                         ::testing::Values(Cell{Debugger::kGdb, true}, Cell{Debugger::kLldb, true},
                                           Cell{Debugger::kLldb, true, Build::k311, true}),
                         NameOfCell);

// The main thread of a core's truth (it took the signal: the debuggers select it).
const json& MainThreadOf(const json& truth) {
  for (const json& thread : truth.at("threads")) {
    if (thread.value("is_main", false)) return thread;
  }
  static const json none = json::object();
  return none;
}

// GDB's plain `bt` of the core's main thread (selected: it took the signal) names on the eval
// loop's frame the Python frames it runs, although the arm64 executable has no debug info
// (GDB names its frames from the minimal symbols).
class Arm64CoreBt : public ::testing::TestWithParam<Cell> {};

TEST_P(Arm64CoreBt, GdbDecoratesTheEvalLoopFrame) {
  const Cell& cell = GetParam();
  PYU_ARM64_OR_SKIP(cell, sysroot, install);
  const auto& core = Core(sysroot, Build::k311);
  if (core.path.empty()) PYU_SKIP_OR_FAIL(core.error);
  const json& main_thread = MainThreadOf(core.truth);
  ASSERT_TRUE(main_thread.contains("frames")) << core.truth.dump(1);
  const json& top = main_thread.at("frames").at(0);
  const std::string file = top.at("filename").get<std::string>();
  const std::string expected = "_PyEval_EvalFrameDefault [Python: " +
                               top.at("name").get<std::string>() + " at " +
                               file.substr(file.rfind('/') + 1) + ":" +
                               std::to_string(top.at("line").get<int>());
  RunResult r = RunCell(cell, Argv(cell, *install, sysroot, core.path, 0, {"bt"}), 180);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_FALSE(LinesContaining(r.out, expected).empty()) << expected << "\n" << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Qemu, Arm64CoreBt, ::testing::Values(Cell{Debugger::kGdb, true}),
                         NameOfCell);

// `py-bt --native` of the core's main thread (selected: it took the signal), in both debuggers
// with the executable: the Python frames follow the eval loop's native frame, and the first
// is the truth's.
class Arm64CoreNative : public ::testing::TestWithParam<Cell> {};

TEST_P(Arm64CoreNative, PythonFramesFollowTheEvalLoopFrame) {
  const Cell& cell = GetParam();
  PYU_ARM64_OR_SKIP(cell, sysroot, install);
  const auto& core = Core(sysroot, Build::k311);
  if (core.path.empty()) PYU_SKIP_OR_FAIL(core.error);
  const json& main_thread = MainThreadOf(core.truth);
  ASSERT_TRUE(main_thread.contains("frames")) << core.truth.dump(1);
  const json& top = main_thread.at("frames").at(0);
  const std::string first_python = "  File \"" + top.at("filename").get<std::string>() +
                                   "\", line " + std::to_string(top.at("line").get<int>()) +
                                   ", in " + top.at("name").get<std::string>() + "\n";
  RunResult r =
      RunCell(cell, Argv(cell, *install, sysroot, core.path, 0, {"py-bt --native"}), 180);
  ASSERT_TRUE(r.exited) << r.Describe();
  const size_t eval = r.out.find(" in _PyEval_EvalFrameDefault");
  ASSERT_NE(eval, std::string::npos) << r.Describe();
  const size_t line_end = r.out.find('\n', eval);
  ASSERT_NE(line_end, std::string::npos);
  EXPECT_EQ(r.out.compare(line_end + 1, first_python.size(), first_python), 0)
      << first_python << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Qemu, Arm64CoreNative,
                         ::testing::Values(Cell{Debugger::kGdb, true}, Cell{Debugger::kLldb, true},
                                           Cell{Debugger::kLldb, true, Build::k311, true}),
                         NameOfCell);

// The guest of a live cell, waiting in qemu's gdbstub for the debugger on a port of its own:
// `suite` (a multiple of 100) and the cell give each test of the binary its own.
struct LiveGuest {
  int port = 0;
  std::unique_ptr<QemuScenario> scenario;
};

LiveGuest StartLiveGuest(const Cell& cell, const std::string& sysroot, const std::string& tag,
                         int suite, std::string* error) {
  LiveGuest guest;
  guest.port = FreePort(suite + 12 * static_cast<int>(cell.build) +
                        4 * static_cast<int>(cell.arm64_debugger) +
                        2 * static_cast<int>(cell.debugger) + cell.with_executable);
  guest.scenario = StartQemu(sysroot, Python(sysroot, cell.build), tag + "-" + CellName(cell),
                             guest.port, error);
  if (guest.scenario && !Listening(guest.port)) {
    *error = "qemu's gdbstub does not listen on " + std::to_string(guest.port) + ": " +
             ReadFile(guest.scenario->dir + "/stderr");
    guest.scenario.reset();
  }
  return guest;
}

// Runs the cell's debugger on a live guest: it connects, continues, gets the stop that SIGUSR1
// to the guest makes once the truth is written, and runs `command`. *truth_written: whether
// the guest wrote its truth.
RunResult RunOnStoppedGuest(const Cell& cell, const std::string& sysroot, const Install& install,
                            LiveGuest& guest, const std::string& command, bool* truth_written) {
  QemuScenario& s = *guest.scenario;
  *truth_written = false;
  std::thread stopper([&] {
    std::string ignored;
    *truth_written = WaitForTruth(s, &ignored);
    kill(s.process->pid(), SIGUSR1);
  });
  const std::string resume = cell.debugger == Debugger::kGdb ? "continue" : "process continue";
  RunResult r = RunCell(cell, Argv(cell, install, sysroot, "", guest.port, {resume, command}), 180);
  stopper.join();
  return r;
}

class Arm64Live : public ::testing::TestWithParam<Cell> {};

TEST_P(Arm64Live, StoppedPyBtAllJsonMatchesTruth) {
  const Cell& cell = GetParam();
  PYU_ARM64_OR_SKIP(cell, sysroot, install);
  std::string error;
  LiveGuest guest = StartLiveGuest(cell, sysroot, "live", 0, &error);
  ASSERT_NE(guest.scenario, nullptr) << error;
  bool truth_written = false;
  RunResult r =
      RunOnStoppedGuest(cell, sysroot, *install, guest, "py-bt --all --json", &truth_written);
  ASSERT_TRUE(truth_written) << "threads.py under qemu wrote no truth: "
                             << ReadFile(guest.scenario->dir + "/stderr") << "\n" << r.Describe();
  ExpectTruth(r, guest.scenario->truth);
}

// Without the executable neither debugger gets regions or modules from qemu's stub: GDB finds
// the executable's program headers through `info auxv`, pyunwind in LLDB (whose SB API has no
// auxiliary vector) through the auxiliary vector on the main thread's stack
// (AuxvProgramHeadersOnStack). Debian's arm64 debuggers under qemu reach the guest's gdbstub
// through TCP (no ptrace needed).
INSTANTIATE_TEST_SUITE_P(Qemu, Arm64Live,
                         ::testing::Values(Cell{Debugger::kGdb, true}, Cell{Debugger::kGdb, false},
                                           Cell{Debugger::kLldb, true},
                                           Cell{Debugger::kLldb, false},
                                           Cell{Debugger::kGdb, true, Build::k311, true},
                                           Cell{Debugger::kLldb, true, Build::k311, true},
                                           Cell{Debugger::kLldb, false, Build::k311, true},
                                           Cell{Debugger::kGdb, true, Build::k313},
                                           Cell{Debugger::kGdb, false, Build::k313},
                                           Cell{Debugger::kLldb, true, Build::k313},
                                           Cell{Debugger::kLldb, false, Build::k313}),
                         NameOfCell);

// While the guest runs (GDB `continue &`; LLDB reading commands from a pipe resumes
// asynchronously), py-bt says so in one line.
class Arm64Running : public ::testing::TestWithParam<Cell> {};

TEST_P(Arm64Running, SaysSoInOneLine) {
  const Cell& cell = GetParam();
  PYU_ARM64_OR_SKIP(cell, sysroot, install);
  std::string error;
  LiveGuest guest = StartLiveGuest(cell, sysroot, "running", 100, &error);
  ASSERT_NE(guest.scenario, nullptr) << error;
  RunResult r;
  if (cell.debugger == Debugger::kGdb) {
    r = RunCell(cell,
                Argv(cell, *install, sysroot, "", guest.port, {"continue &", "py-bt --all --json"}),
                120);
  } else {
    // Commands read from a pipe run asynchronously: `process continue` and py-bt are each
    // sent a second after the command before, once its event (the stop at connection, the
    // run) has come. Then LLDB is killed: on its way out it would wait 20 s for a stop that
    // qemu's stub never gives.
    const std::string script =
        "mkfifo \"$5\" || exit 3; lldb --no-lldbinit < \"$5\" & lldb=$!; exec 3> \"$5\";"
        " printf '%s\\n' \"plugin load $1\" \"target create --arch $2 $3\" \"gdb-remote $4\" >&3;"
        " sleep 1; echo 'process continue' >&3; sleep 1; echo 'py-bt --all --json' >&3; sleep 1;"
        " kill -9 $lldb; wait $lldb; exit 0";
    r = RunCell(cell,
                {"sh", "-c", script, "sh", install->lldb_plugin, kLldbArch,
                 Python(sysroot, cell.build), "127.0.0.1:" + std::to_string(guest.port),
                 guest.scenario->dir + "/lldb-commands"},
                120);
  }
  const std::string all = r.out + r.err;
  EXPECT_EQ(LinesContaining(all, "the process is running").size(), 1u) << r.Describe();
  EXPECT_TRUE(LinesContaining(all, "no Python runtime").empty()) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Qemu, Arm64Running,
                         ::testing::Values(Cell{Debugger::kGdb, true}, Cell{Debugger::kGdb, false},
                                           Cell{Debugger::kLldb, true}),
                         NameOfCell);

}  // namespace
}  // namespace pyunwind_e2e

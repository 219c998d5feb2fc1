// The end-to-end test harness: start CPython scenario processes, make cores, run LLDB and
// GDB in batch mode with pyunwind loaded, pull the JSON document out of their output and
// compare it with the scenario's truth file.
//
// Every process the harness starts is in its own process group, gets SIGKILL if the test
// process dies (PR_SET_PDEATHSIG), and is killed and reaped when its Process object goes
// away, also when an assertion fails half-way.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pyunwind_e2e {

using nlohmann::json;

// ---------------------------------------------------------------- paths

// The test's scratch directory (tests/temp_dir.h), as a string.
const std::string& TempDir();

// The real project root (the git checkout), found by resolving the runfiles symlink of
// tests/e2e/harness.h (a data dependency of the harness). Empty if it cannot be found.
const std::string& WorkspaceRoot();

// The shared fixtures directory: $PYUNWIND_SHARED_DIR if set, else <workspace root>/../shared
// (the layout of the development machines and of CI: <clone>/ and <clone>/../shared/).
const std::string& SharedDir();

// The project's scenario program tests/data/<name>.py ("threads", "asyncio_tree", "locals",
// "scale"; each writes its truth with tests/data/scenario_truth.py), as an absolute path in
// the checkout. The live tests run these; the fixture cores of <shared> were made from
// scenarios of the same names and shapes, which are not these programs.
std::string ScenarioScript(const std::string& name);

// Whether <shared>/fixtures exists. A user's clone has no ../shared: the fixture-core tests
// skip, saying where they looked (SharedMissing()), instead of failing.
bool SharedPresent();
std::string SharedMissing();

// In a test body: skips the test when `error` says it cannot run here ("skip: <why>"),
// else fails it with `error`.
#define PYU_SKIP_OR_FAIL(error)                                         \
  do {                                                                  \
    if ((error).rfind("skip: ", 0) == 0) GTEST_SKIP() << (error).substr(6); \
    FAIL() << (error);                                                  \
  } while (0)

// A file of this project (e.g. "tests/data/injection.py"): from the runfiles when it is a
// data dependency, else from the checkout.
std::string ProjectFile(const std::string& relative);

// Debian's interpreter (static, non-PIE).
inline constexpr const char* kDebianPython = "/usr/bin/python3.11";

// pyenv's interpreter of the given version: <root>/versions/3.12.1/bin/python3.12 with the
// first root that has it of $PYENV_ROOT, /root/.pyenv, ~/.pyenv; nullopt when none has it.
std::optional<std::string> PyenvPython(const std::string& version);

// Debian unstable's interpreter of a minor ("3.14") as .ci/fetch-pythons unpacks it:
// <cache>/3.14/usr/bin/python3.14 with <cache> $PYUNWIND_PYTHON_CACHE or
// /var/cache/pyunwind-python; nullopt when it is not there.
std::optional<std::string> SidPython(const std::string& minor);

// Debian 11's own interpreter (python3.9 3.9.2: static, non-PIE, stripped) as
// `.ci/fetch-pythons bullseye` unpacks it: <cache>/bullseye/usr/bin/python3.9, <cache> as for
// SidPython; nullopt when it is not there.
std::optional<std::string> BullseyePython();
inline constexpr const char* kBullseyeInterp = "bullseye_3.9";
// Debian 13's python3.13 (3.13.5, with its greenlet 3.1 and gevent 24.11) as `.ci/fetch-pythons
// trixie` unpacks it: <cache>/trixie/usr/bin/python3.13.
inline constexpr const char* kTrixieInterp = "trixie_3.13";

// A free-threaded interpreter ("3.13t") as `.ci/fetch-pythons 3.13t` builds it by hand from
// Debian's source: <cache>/3.13t/usr/bin/python3.13t, <cache> as for SidPython; nullopt when it
// is not there.
std::optional<std::string> BuiltFreeThreadedPython(const std::string& target);
inline constexpr const char* kBuiltPrefix = "built_";

// Why the interpreter a test cell names is not used, or "": a built one ("built_3.13t") is not
// run on CI (CI=true, which .ci/run passes to the tests): it is built by hand, as the others
// are fetched by .ci/run, and its cells would add minutes to CI's budget.
std::string InterpreterNotUsedOnCi(const std::string& interp);

// The interpreter a test cell names: "debian_3.11" (kDebianPython), "debian_3.11d"
// (Debian's debug build, python3.11-dbg), "sid_3.14" (SidPython), "bullseye_3.9"
// (BullseyePython), "trixie_3.13" (kTrixieInterp), "built_3.13t" (BuiltFreeThreadedPython) or
// a pyenv version; nullopt when not installed.
std::optional<std::string> InterpreterPath(const std::string& interp);

// A file of this workspace in the test's runfiles (a data dependency: a built file such as
// //:tarball_arm64's), whether it is there or not.
std::string RunfilesPath(const std::string& workspace_path);

bool FileExists(const std::string& path);
std::string ReadFile(const std::string& path);

// ---------------------------------------------------------------- processes

struct ProcessOptions {
  std::vector<std::string> argv;  // argv[0] without '/' is looked up in PATH=/usr/bin:/bin
  // The child's environment is the test's, with these set (an empty value removes it).
  std::map<std::string, std::string> env;
  std::string stdout_path;  // where stdout goes (empty: /dev/null)
  std::string stderr_path;  // where stderr goes (empty: /dev/null)
  // The child's madvise(MADV_GUARD_INSTALL) fails (a seccomp filter), so that glibc 2.41+
  // makes thread-stack guards with mprotect, which gcore can step over (kCoreIncomplete).
  bool refuse_guard_madvise = false;
};

// A child process, killed (SIGKILL to its process group) and reaped when destroyed.
class Process {
 public:
  // Starts the child; on failure returns nullptr and sets *error.
  static std::unique_ptr<Process> Spawn(const ProcessOptions& options, std::string* error);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // True while the child has not exited (reaps it if it has).
  bool Running();
  // Waits up to timeout_s seconds; false on timeout. Sets the exit status fields.
  bool Wait(double timeout_s);
  void Kill();

  bool exited() const { return exited_; }
  int exit_code() const { return exit_code_; }
  int term_signal() const { return term_signal_; }
  // The child's peak resident set (wait4's ru_maxrss) once it exited by itself; 0 before,
  // or when it was killed.
  long max_rss_kb() const { return max_rss_kb_; }

 private:
  explicit Process(pid_t pid) : pid_(pid) {}
  void Record(int status);
  pid_t pid_;
  bool reaped_ = false;
  bool exited_ = false;
  int exit_code_ = -1;
  int term_signal_ = 0;
  long max_rss_kb_ = 0;
};

struct RunResult {
  bool started = false;
  bool timed_out = false;
  bool exited = false;  // exited normally (not by a signal)
  int exit_code = -1;
  int term_signal = 0;
  std::string out;
  std::string err;
  std::string command;  // the command line, for messages
  double seconds = 0;   // from start to exit (or to the kill)
  long max_rss_kb = 0;  // the command's own peak resident set (Process::max_rss_kb)
  // "exit 0", "killed by signal 11", "timed out (killed)", ...
  std::string Status() const;
  // The command, its status and (the start of) its output, for failure messages.
  std::string Describe() const;
};

// Runs a command to completion (killing it after timeout_s) and captures its output.
RunResult RunCommand(const std::vector<std::string>& argv, double timeout_s,
              const std::map<std::string, std::string>& env = {});

// The environment the debuggers and scenarios run with: PATH=/usr/bin:/bin, so that no
// pyenv python3 on PATH changes what LLDB's embedded Python does.
std::map<std::string, std::string> CleanEnv();

// ---------------------------------------------------------------- scenarios and cores

// Waits (at most 5 s) until the main thread of `pid` has not blocked for 100 ms. A scenario's
// main thread writes the truth just before it parks; in between it still takes the GIL back
// from other threads, so a debugger attaching at once can find them mid hand-over.
void WaitUntilMainThreadSettles(pid_t pid);

// Waits (at most `timeout_s`) until every thread of `pid` but `running` (those that spin on
// purpose) sleeps and none has blocked again for 100 ms: parked. For a scenario whose threads
// park after the truth is written, under an emulator slow enough that a thread can still be
// finishing its last line (a qemu guest).
void WaitUntilThreadsSettle(pid_t pid, const std::set<pid_t>& running, double timeout_s);

// A scenario script running under a given interpreter, parked, with its truth loaded.
class Scenario {
 public:
  // Starts `python ScenarioScript(name) <truth>` and waits (up to timeout_s) for the truth
  // file. On failure returns nullptr and sets *error.
  static std::unique_ptr<Scenario> Start(const std::string& python, const std::string& name,
                                         std::string* error, double timeout_s = 60);
  // The same for a script of any path that follows the scenario protocol (argv[1]: the
  // truth file, written atomically once parked, with at least "pid").
  static std::unique_ptr<Scenario> StartScript(const std::string& python,
                                               const std::string& script, std::string* error,
                                               double timeout_s = 60);
  pid_t pid() const { return process_->pid(); }
  const json& truth() const { return truth_; }
  const std::string& python() const { return python_; }

 private:
  Scenario() = default;
  std::unique_ptr<Process> process_;
  json truth_;
  std::string python_;
};

// `gcore -o <dir>/<prefix> PID`; returns the core's path, or "" and sets *error.
// What MakeCore's error starts with when gcore could not read part of the process's memory
// and left it out of the core (zeros): GDB 13 gives up on a whole mapping at the first page
// it cannot read, and glibc 2.41+ on Linux 6.13+ puts unreadable guard pages
// (MADV_GUARD_INSTALL) at the start of every thread stack, so those stacks come out as zeros
// (unless the process ran with ProcessOptions::refuse_guard_madvise, as every scenario does).
inline constexpr const char* kCoreIncomplete = "gcore left part of the process's memory out of the core";

std::string MakeCore(pid_t pid, const std::string& prefix, std::string* error);

// One scenario process and a gcore core of it, each made on first use and kept (for a test
// suite: destroying it kills and reaps the process). A failure is remembered, so that later
// cases fail at once with the same error.
class ScenarioWithCore {
 public:
  // The scenario `name` under `python`, or nullptr and *error.
  const Scenario* Start(const std::string& python, const std::string& name, std::string* error);
  // The same for a script of this project (Scenario::StartScript).
  const Scenario* StartScript(const std::string& python, const std::string& script,
                              std::string* error);
  // The core of the started scenario (named after `prefix`), or "" and *error.
  const std::string& Core(const std::string& prefix, std::string* error);

 private:
  std::unique_ptr<Scenario> scenario_;
  std::string scenario_error_;
  bool core_tried_ = false;
  std::string core_;
  std::string core_error_;
};

// `xz -dc xz_path > dest`; false and *error on failure.
bool DecompressXz(const std::string& xz_path, const std::string& dest, std::string* error);

// ---------------------------------------------------------------- debuggers

enum class Debugger { kLldb, kGdb };
const char* DebuggerName(Debugger d);

// pyunwind installed with `//:install` into the test's temp dir (once per test binary).
struct Install {
  std::string dir;
  std::string lldb_plugin;  // <dir>/libpyunwind_lldb.so
  std::string gdb_script;   // <dir>/pyunwind-gdb.py
};
// The installed files, or nullptr and *error if //:install failed.
const Install* Installed(std::string* error);

// What the debugger opens: a live process, a core (with or without its executable), or
// nothing at all.
struct Target {
  pid_t pid = 0;
  std::string core;
  std::string executable;
};

// The debugger's batch command line: loads pyunwind, then runs each of `commands`.
std::vector<std::string> DebuggerArgv(Debugger d, const Install& install, const Target& target,
                                      const std::vector<std::string>& commands);

// The environment a debugger that loads pyunwind runs with: CleanEnv(), and in the asan
// mode ($PYUNWIND_ASAN_PRELOAD) the preloads and options its instrumented pyunwind needs.
std::map<std::string, std::string> DebuggerEnv();

// Runs the debugger (DebuggerEnv()) and captures its output.
RunResult RunDebugger(Debugger d, const Install& install, const Target& target,
                      const std::vector<std::string>& commands, double timeout_s = 180);

// ---------------------------------------------------------------- JSON and comparison

// The one JSON object in a debugger's output, ignoring the noise around it (LLDB's
// "(lldb) ..." echo lines, "Process 123 stopped" blocks, Python start-up errors, GDB's
// thread messages). A candidate starts at a '{' that begins a line and ends at its matching
// '}' (strings and escapes respected); exactly one candidate must parse as an object.
// On failure returns nullopt and sets *error.
std::optional<json> ExtractJson(const std::string& output, std::string* error);

// The threads of a `py-bt --all --json` document by OS thread id (a thread without one is left
// out).
std::map<uint64_t, json> ThreadsByNativeId(const json& document);

// Whether a JSON thread's "status" lists `status`.
bool HasStatus(const json& thread, const std::string& status);

// Compares pyunwind's `py-bt --all --json` document with a truth file. For every truth
// thread (matched by native_id) pyunwind's thread must have the truth's threading `name`
// (where the truth records one) and exactly the same Python frames
// in the same order (filename, line, name, qualname); frames pyunwind marks with a kind other
// than "python" (native/shim/gc, shown only on request) are not Python frames and are left
// out; a thread pyunwind shows that the truth does not have is an error. Returns "" when
// they match, else a readable report of every difference.
std::string CompareWithTruth(const json& truth, const json& tool);

// Runs `py-bt --all --json` in the debugger and checks it against the truth: the debugger
// exits normally, its output holds one JSON document, and CompareWithTruth finds no
// difference. Returns "" when all holds, else what went wrong with the debugger's output.
std::string PyBtAllMismatch(Debugger d, const Install& install, const Target& target,
                            const json& truth);

// Lines of `text` containing `needle`.
std::vector<std::string> LinesContaining(const std::string& text, const std::string& needle);
// How many times `needle` occurs in `text`, overlapping occurrences counted ("\nX\n" twice in
// "\nX\nX\n").
size_t Occurrences(const std::string& text, const std::string& needle);

// A name usable in a gtest test name (letters, digits, '_').
std::string SanitizeName(const std::string& s);

}  // namespace pyunwind_e2e

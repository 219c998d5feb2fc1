#include "tests/e2e/harness.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tests/temp_dir.h"

extern char** environ;

namespace pyunwind_e2e {

namespace {

std::string Getenv(const char* name) {
  const char* v = getenv(name);
  return v ? v : "";
}

std::string Dirname(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (!realpath(path.c_str(), buf)) return "";
  return buf;
}

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string UniquePath(const std::string& stem) {
  static int counter = 0;
  return TempDir() + "/" + stem + "." + std::to_string(getpid()) + "." + std::to_string(++counter);
}

std::string Quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\"'\\$`") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

std::string JoinCommand(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += Quote(a);
  }
  return s;
}

std::string Tail(const std::string& s, size_t n) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

}  // namespace

// ---------------------------------------------------------------- paths

const std::string& TempDir() {
  static const std::string dir = pyunwind::testing::TestTempDir().string();
  return dir;
}

// How the project root is found: inside `bazel test` the runfiles tree holds a symlink for
// every data file, and the symlink of a *source* file resolves (through the execroot) to
// the file in the real checkout. tests/e2e/harness.h is a data dependency of the harness,
// so realpath($TEST_SRCDIR/$TEST_WORKSPACE/tests/e2e/harness.h) is
// <checkout>/tests/e2e/harness.h, whatever the sandbox or output base. Outside Bazel
// (running a test binary by hand) $PYUNWIND_WORKSPACE or the current directory is used.
const std::string& WorkspaceRoot() {
  static const std::string root = [] {
    std::string env_root = Getenv("PYUNWIND_WORKSPACE");
    if (!env_root.empty()) return env_root;
    std::string workspace = Getenv("TEST_WORKSPACE");
    if (workspace.empty()) workspace = "pyunwind";
    std::vector<std::string> runfiles_dirs = {Getenv("TEST_SRCDIR"), Getenv("RUNFILES_DIR")};
    for (const auto& dir : runfiles_dirs) {
      if (dir.empty()) continue;
      std::string real = RealPath(dir + "/" + workspace + "/tests/e2e/harness.h");
      if (!real.empty()) return Dirname(Dirname(Dirname(real)));
    }
    std::string cwd = RealPath(".");
    if (FileExists(cwd + "/tests/e2e/harness.h")) return cwd;
    return std::string();
  }();
  return root;
}

const std::string& SharedDir() {
  static const std::string dir = [] {
    std::string env_dir = Getenv("PYUNWIND_SHARED_DIR");
    if (!env_dir.empty()) return env_dir;
    if (WorkspaceRoot().empty()) return std::string();
    std::string real = RealPath(WorkspaceRoot() + "/../shared");
    return real.empty() ? WorkspaceRoot() + "/../shared" : real;
  }();
  return dir;
}

std::string ProjectFile(const std::string& relative) {
  if (FileExists(relative)) return relative;
  return WorkspaceRoot() + "/" + relative;
}

bool SharedPresent() { return FileExists(SharedDir() + "/fixtures"); }

std::string SharedMissing() {
  return "no shared fixtures at " + SharedDir() +
         "/fixtures (../shared beside the checkout, or $PYUNWIND_SHARED_DIR)";
}

std::string ScenarioScript(const std::string& name) {
  const std::string script = ProjectFile("tests/data/" + name + ".py");
  const std::string real = RealPath(script);  // the checkout's file, not the runfiles link
  return real.empty() ? script : real;
}

std::optional<std::string> PyenvPython(const std::string& version) {
  const std::string minor = version.substr(0, version.rfind('.'));  // "3.12"
  std::vector<std::string> roots;
  if (!Getenv("PYENV_ROOT").empty()) roots.push_back(Getenv("PYENV_ROOT"));
  roots.push_back("/root/.pyenv");
  if (!Getenv("HOME").empty()) roots.push_back(Getenv("HOME") + "/.pyenv");
  for (const auto& root : roots) {
    std::string python = root + "/versions/" + version + "/bin/python" + minor;
    if (IsExecutable(python)) return python;
  }
  return std::nullopt;
}

namespace {

// <cache>/<subdir>/usr/bin/python<minor> as .ci/fetch-pythons unpacks it, once complete.
std::optional<std::string> FetchedPython(const std::string& subdir, const std::string& minor) {
  const std::string cache = Getenv("PYUNWIND_PYTHON_CACHE").empty() ? "/var/cache/pyunwind-python"
                                                                    : Getenv("PYUNWIND_PYTHON_CACHE");
  const std::string dir = cache + "/" + subdir;
  const std::string python = dir + "/usr/bin/python" + minor;
  if (!FileExists(dir + "/.complete") || !IsExecutable(python)) return std::nullopt;
  return python;
}

}  // namespace

std::optional<std::string> SidPython(const std::string& minor) {
  return FetchedPython(minor, minor);
}

std::optional<std::string> BullseyePython() { return FetchedPython("bullseye", "3.9"); }

std::optional<std::string> BuiltFreeThreadedPython(const std::string& target) {
  return FetchedPython(target, target);
}

std::string InterpreterNotUsedOnCi(const std::string& interp) {
  if (interp.rfind(kBuiltPrefix, 0) != 0 || Getenv("CI") != "true") return "";
  return interp + " is built by hand (.ci/fetch-pythons " + interp.substr(std::strlen(kBuiltPrefix)) +
         "), not on CI: its cells run on a developer's machine";
}

std::optional<std::string> InterpreterPath(const std::string& interp) {
  std::string path;
  if (interp.rfind("sid_", 0) == 0) {
    return SidPython(interp.substr(4));
  } else if (interp.rfind(kBuiltPrefix, 0) == 0) {
    return BuiltFreeThreadedPython(interp.substr(std::strlen(kBuiltPrefix)));
  } else if (interp == kBullseyeInterp) {
    return BullseyePython();
  } else if (interp == kTrixieInterp) {
    return FetchedPython("trixie", "3.13");
  } else if (interp == "debian_3.11") {
    path = kDebianPython;
  } else if (interp == "debian_3.11d") {
    path = "/usr/bin/python3.11d";
  } else {
    return PyenvPython(interp);
  }
  if (!FileExists(path)) return std::nullopt;
  return path;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string ReadFile(const std::string& path) {
  // Read in one piece, sized first: a debugger's output may be hundreds of MB
  // (tests/e2e/hostile_output_test.cc), which a stringstream copies twice.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamsize size = in.tellg();
  if (size <= 0) {
    // Not a regular file (a /proc file says 0): read it to its end.
    in.seekg(0);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string text(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(text.data(), size);
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// ---------------------------------------------------------------- processes

namespace {

// Linux 6.13's madvise advice that installs guard pages; glibc 2.41+ puts thread-stack guards
// in with it when the kernel has it, and falls back to mprotect when the call fails.
constexpr unsigned kMadvGuardInstall = 102;

// In the child before execve: madvise(..., MADV_GUARD_INSTALL) fails with EINVAL, every other
// system call is untouched. Best effort: where seccomp is not allowed nothing changes.
void RefuseGuardMadvise() {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_madvise, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kMadvGuardInstall, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EINVAL & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])),
                               filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return;
  prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
}

}  // namespace

std::unique_ptr<Process> Process::Spawn(const ProcessOptions& options, std::string* error) {
  if (options.argv.empty()) {
    *error = "empty command";
    return nullptr;
  }
  std::string program = options.argv[0];
  if (program.find('/') == std::string::npos) {
    for (const char* dir : {"/usr/bin/", "/bin/"}) {
      if (IsExecutable(dir + program)) {
        program = dir + program;
        break;
      }
    }
  }
  if (!IsExecutable(program)) {
    *error = "not an executable: " + program;
    return nullptr;
  }

  // The environment: ours, with options.env applied.
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : options.env) {
    if (v.empty()) env.erase(k);
    else env[k] = v;
  }
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = options.argv;
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  auto open_out = [](const std::string& path) {
    return open(path.empty() ? "/dev/null" : path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                0644);
  };
  int out_fd = open_out(options.stdout_path);
  int err_fd = open_out(options.stderr_path);
  int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out_fd < 0 || err_fd < 0 || in_fd < 0) {
    *error = std::string("cannot open output files: ") + strerror(errno);
    for (int fd : {out_fd, err_fd, in_fd})
      if (fd >= 0) close(fd);
    return nullptr;
  }

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + strerror(errno);
    close(out_fd);
    close(err_fd);
    close(in_fd);
    return nullptr;
  }
  if (pid == 0) {
    // Child: own process group (so the whole tree can be killed), die with the test.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (options.refuse_guard_madvise) RefuseGuardMadvise();
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so it holds before we might kill the group
  close(out_fd);
  close(err_fd);
  close(in_fd);
  return std::unique_ptr<Process>(new Process(pid));
}

Process::~Process() { Kill(); }

void Process::Record(int status) {
  reaped_ = true;
  if (WIFEXITED(status)) {
    exited_ = true;
    exit_code_ = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    term_signal_ = WTERMSIG(status);
  }
}

bool Process::Running() {
  if (reaped_) return false;
  int status = 0;
  struct rusage usage {};
  pid_t r = wait4(pid_, &status, WNOHANG, &usage);
  if (r == pid_) max_rss_kb_ = usage.ru_maxrss;
  if (r == pid_) {
    Record(status);
    return false;
  }
  return r == 0;
}

bool Process::Wait(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (Running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void Process::Kill() {
  // The whole process group: debuggers start helpers (lldb-server) in it.
  kill(-pid_, SIGKILL);
  if (reaped_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  Record(status);
}

std::string RunResult::Status() const {
  if (!started) return "could not start";
  if (timed_out) return "timed out (killed)";
  if (exited) return "exit " + std::to_string(exit_code);
  return "killed by signal " + std::to_string(term_signal) + " (" + strsignal(term_signal) + ")";
}

std::string RunResult::Describe() const {
  return "command: " + command + "\nstatus: " + Status() + "\nstdout:\n" + out.substr(0, 4000) +
         "\nstderr:\n" + err.substr(0, 4000);
}

RunResult RunCommand(const std::vector<std::string>& argv, double timeout_s,
              const std::map<std::string, std::string>& env) {
  RunResult result;
  result.command = JoinCommand(argv);
  ProcessOptions options;
  options.argv = argv;
  options.env = env;
  options.stdout_path = UniquePath("stdout");
  options.stderr_path = UniquePath("stderr");
  std::string error;
  auto process = Process::Spawn(options, &error);
  if (!process) {
    result.err = error;
    return result;
  }
  result.started = true;
  const auto started = std::chrono::steady_clock::now();
  if (!process->Wait(timeout_s)) {
    result.timed_out = true;
    process->Kill();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.max_rss_kb = process->max_rss_kb();
  result.exited = process->exited();
  result.exit_code = process->exit_code();
  result.term_signal = process->term_signal();
  result.out = ReadFile(options.stdout_path);
  result.err = ReadFile(options.stderr_path);
  unlink(options.stdout_path.c_str());
  unlink(options.stderr_path.c_str());
  return result;
}

std::map<std::string, std::string> CleanEnv() {
  return {{"PATH", "/usr/bin:/bin"}, {"PYTHONDONTWRITEBYTECODE", "1"}};
}

// ---------------------------------------------------------------- scenarios and cores

std::unique_ptr<Scenario> Scenario::Start(const std::string& python, const std::string& name,
                                          std::string* error, double timeout_s) {
  std::string script = ScenarioScript(name);
  if (!FileExists(script)) {
    *error = "scenario script not found: " + script;
    return nullptr;
  }
  return StartScript(python, script, error, timeout_s);
}

namespace {

// The times the thread `tid` of `pid` has blocked so far (voluntary_ctxt_switches of
// /proc/PID/task/TID/status), or -1 when it cannot be read.
long VoluntarySwitches(pid_t pid, pid_t tid) {
  const std::string status =
      ReadFile("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  const std::string key = "\nvoluntary_ctxt_switches:";
  const size_t at = status.find(key);
  return at == std::string::npos ? -1 : std::atol(status.c_str() + at + key.size());
}

}  // namespace

// Settled: parked, or never blocking (a main thread that spins on purpose).
void WaitUntilMainThreadSettles(pid_t pid) {
  long before = VoluntarySwitches(pid, pid);
  for (int i = 0; i < 50 && before >= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const long now = VoluntarySwitches(pid, pid);
    if (now == before) return;
    before = now;
  }
}

// Whether every thread of `pid` but `running` sleeps (state S or D in
// /proc/PID/task/TID/stat), and the sum of their voluntary switches in *switches; false when
// the threads cannot be read.
bool AllThreadsAsleep(pid_t pid, const std::set<pid_t>& running, long* switches) {
  *switches = 0;
  std::error_code ec;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    const auto tid = static_cast<pid_t>(std::atol(task.path().filename().c_str()));
    if (running.count(tid)) continue;
    const std::string stat = ReadFile(task.path().string() + "/stat");
    const size_t paren = stat.rfind(')');  // the name may hold spaces and parentheses
    if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
    const char state = stat[paren + 2];
    if (state != 'S' && state != 'D') return false;
    const long n = VoluntarySwitches(pid, tid);
    if (n < 0) return false;
    *switches += n;
    any = true;
  }
  return any && !ec;
}

void WaitUntilThreadsSettle(pid_t pid, const std::set<pid_t>& running, double timeout_s) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  long before = -1;
  while (std::chrono::steady_clock::now() < deadline) {
    long switches = 0;
    const bool asleep = AllThreadsAsleep(pid, running, &switches);
    if (asleep && switches == before) return;
    before = asleep ? switches : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::unique_ptr<Scenario> Scenario::StartScript(const std::string& python,
                                                const std::string& script, std::string* error,
                                                double timeout_s) {
  std::string name = script.substr(script.rfind('/') + 1);
  name = name.substr(0, name.rfind('.'));
  std::string truth_path = UniquePath("truth-" + name) + ".json";
  std::string log_path = truth_path + ".log";
  ProcessOptions options;
  options.argv = {python, script, truth_path};
  options.env = CleanEnv();
  // No PYTHON* settings of the test environment may change what the scenario does.
  for (const char* var : {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"}) options.env[var] = "";
  options.stdout_path = log_path;
  options.stderr_path = log_path + ".err";
  options.refuse_guard_madvise = true;  // its gcore cores hold every thread stack
  std::unique_ptr<Scenario> scenario(new Scenario());
  scenario->python_ = python;
  scenario->process_ = Process::Spawn(options, error);
  if (!scenario->process_) return nullptr;

  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!FileExists(truth_path)) {
    if (!scenario->process_->Running()) {
      *error = "scenario " + name + " under " + python + " exited before writing its truth: " +
               Tail(ReadFile(options.stderr_path), 2000);
      return nullptr;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      *error = "scenario " + name + " under " + python + " wrote no truth within " +
               std::to_string(int(timeout_s)) + " s: " + Tail(ReadFile(options.stderr_path), 2000);
      return nullptr;  // ~Scenario kills it
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  try {
    scenario->truth_ = json::parse(ReadFile(truth_path));
  } catch (const std::exception& e) {
    *error = "cannot parse truth " + truth_path + ": " + e.what();
    return nullptr;
  }
  if (scenario->truth_.value("pid", 0) != scenario->pid()) {
    *error = "truth pid " + scenario->truth_.value("pid", json()).dump() + " is not the child " +
             std::to_string(scenario->pid());
    return nullptr;
  }
  WaitUntilMainThreadSettles(scenario->pid());
  return scenario;
}

std::string MakeCore(pid_t pid, const std::string& prefix, std::string* error) {
  std::string path_prefix = TempDir() + "/" + prefix;
  RunResult r = RunCommand({"gcore", "-o", path_prefix, std::to_string(pid)}, 180, CleanEnv());
  std::string core = path_prefix + "." + std::to_string(pid);
  if (!r.exited || r.exit_code != 0 || !FileExists(core)) {
    *error = "gcore failed (" + r.Status() + "): " + Tail(r.out + r.err, 2000);
    return "";
  }
  // The vsyscall page (0xffffffffff600000) is never readable and holds nothing of the process.
  const std::string output = r.out + r.err;
  const std::string warning = "Memory read failed for corefile section";
  for (size_t at = output.find(warning); at != std::string::npos; at = output.find(warning, at + 1)) {
    const std::string line = output.substr(at, output.find('\n', at) - at);
    if (line.find("0xffffffffff600000") != std::string::npos) continue;
    *error = std::string(kCoreIncomplete) + " (" + line + " ...; glibc 2.41+ thread-stack guard pages)";
    unlink(core.c_str());  // not used: it need not take the disk
    return "";
  }
  return core;
}

const Scenario* ScenarioWithCore::Start(const std::string& python, const std::string& name,
                                        std::string* error) {
  if (!scenario_ && scenario_error_.empty()) {
    scenario_ = Scenario::Start(python, name, &scenario_error_);
  }
  *error = scenario_error_;
  return scenario_.get();
}

const Scenario* ScenarioWithCore::StartScript(const std::string& python, const std::string& script,
                                              std::string* error) {
  if (!scenario_ && scenario_error_.empty()) {
    scenario_ = Scenario::StartScript(python, script, &scenario_error_);
  }
  *error = scenario_error_;
  return scenario_.get();
}

const std::string& ScenarioWithCore::Core(const std::string& prefix, std::string* error) {
  if (!core_tried_) {
    core_tried_ = true;
    if (scenario_) {
      core_ = MakeCore(scenario_->pid(), prefix, &core_error_);
    } else {
      core_error_ = "no scenario to dump: " + scenario_error_;
    }
  }
  *error = core_error_;
  return core_;
}

bool DecompressXz(const std::string& xz_path, const std::string& dest, std::string* error) {
  ProcessOptions options;
  options.argv = {"xz", "-dc", xz_path};
  options.env = CleanEnv();
  options.stdout_path = dest;
  options.stderr_path = dest + ".err";
  auto process = Process::Spawn(options, error);
  if (!process) return false;
  if (!process->Wait(300)) {
    *error = "xz -dc " + xz_path + " timed out";
    return false;
  }
  if (!process->exited() || process->exit_code() != 0) {
    *error = "xz -dc " + xz_path + " failed: " + ReadFile(dest + ".err");
    return false;
  }
  unlink((dest + ".err").c_str());
  return true;
}

// ---------------------------------------------------------------- debuggers

const char* DebuggerName(Debugger d) { return d == Debugger::kLldb ? "lldb" : "gdb"; }

namespace {

std::string RunfilesDir() {
  std::string runfiles = Getenv("TEST_SRCDIR");
  return runfiles.empty() ? Getenv("RUNFILES_DIR") : runfiles;
}

}  // namespace

std::string RunfilesPath(const std::string& workspace_path) {
  std::string workspace = Getenv("TEST_WORKSPACE");
  if (workspace.empty()) workspace = "pyunwind";
  return RunfilesDir() + "/" + workspace + "/" + workspace_path;
}

const Install* Installed(std::string* error) {
  static std::string install_error;
  static const std::unique_ptr<Install> install = []() -> std::unique_ptr<Install> {
    std::string runfiles = RunfilesDir();
    std::string script = RunfilesPath("install");
    if (runfiles.empty() || !FileExists(script)) {
      install_error = "//:install not found in the runfiles (" + script + ")";
      return nullptr;
    }
    auto result = std::make_unique<Install>();
    result->dir = TempDir() + "/pyunwind-install";
    auto env = CleanEnv();
    env["RUNFILES_DIR"] = runfiles;
    RunResult r = RunCommand({script, result->dir}, 60, env);
    if (!r.exited || r.exit_code != 0) {
      install_error = "//:install failed (" + r.Status() + "): " + Tail(r.out + r.err, 2000);
      return nullptr;
    }
    result->lldb_plugin = result->dir + "/libpyunwind_lldb.so";
    result->gdb_script = result->dir + "/pyunwind-gdb.py";
    for (const auto& f : {result->lldb_plugin, result->gdb_script}) {
      if (!FileExists(f)) {
        install_error = "//:install did not install " + f;
        return nullptr;
      }
    }
    return result;
  }();
  if (!install) *error = install_error;
  return install.get();
}

std::vector<std::string> DebuggerArgv(Debugger d, const Install& install, const Target& target,
                                      const std::vector<std::string>& commands) {
  std::vector<std::string> argv;
  if (d == Debugger::kLldb) {
    // --no-lldbinit: no ~/.lldbinit of the machine changes what the test sees.
    argv = {"lldb", "--batch", "--no-lldbinit"};
    if (!target.executable.empty()) argv.push_back(target.executable);
    if (!target.core.empty()) argv.insert(argv.end(), {"-c", target.core});
    argv.insert(argv.end(), {"-o", "plugin load " + install.lldb_plugin});
    for (const auto& c : commands) argv.insert(argv.end(), {"-o", c});
    if (target.pid) argv.insert(argv.end(), {"-p", std::to_string(target.pid)});
  } else {
    argv = {"gdb", "-batch", "-nx"};
    if (!target.executable.empty()) argv.push_back(target.executable);
    if (!target.core.empty()) argv.insert(argv.end(), {"-c", target.core});
    if (target.pid) argv.insert(argv.end(), {"-p", std::to_string(target.pid)});
    argv.insert(argv.end(), {"-ex", "source " + install.gdb_script});
    for (const auto& c : commands) argv.insert(argv.end(), {"-ex", c});
  }
  return argv;
}

std::map<std::string, std::string> DebuggerEnv() {
  std::map<std::string, std::string> env = CleanEnv();
  // `bazel test --config=asan`: the plugin and the GDB bridge are built with ASan, the
  // debuggers are not; ASan's runtime must be loaded first, then libasan_first.so (which
  // initialises it before GDB's libraries can deadlock it), and the debuggers' own leaks
  // at exit are not ours. Sanitizer reports still abort the debugger (a test failure).
  if (const char* preload = std::getenv("PYUNWIND_ASAN_PRELOAD"); preload && *preload) {
    env["LD_PRELOAD"] = std::string(preload) + " " + RunfilesPath("tests/e2e/libasan_first.so");
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1";
  }
  return env;
}

RunResult RunDebugger(Debugger d, const Install& install, const Target& target,
                      const std::vector<std::string>& commands, double timeout_s) {
  return RunCommand(DebuggerArgv(d, install, target, commands), timeout_s, DebuggerEnv());
}

// ---------------------------------------------------------------- JSON and comparison

namespace {

// The index one past the '}' matching the '{' at `start`, or npos.
size_t MatchingBrace(const std::string& s, size_t start) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = start; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return c == '}' ? i + 1 : std::string::npos;
      if (depth < 0) return std::string::npos;
    }
  }
  return std::string::npos;
}

}  // namespace

std::map<uint64_t, json> ThreadsByNativeId(const json& document) {
  std::map<uint64_t, json> threads;
  for (const json& interp : document.at("interpreters")) {
    for (const json& thread : interp.at("threads")) {
      if (thread.at("native_id").is_number()) threads[thread.at("native_id").get<uint64_t>()] = thread;
    }
  }
  return threads;
}

bool HasStatus(const json& thread, const std::string& status) {
  const json& list = thread.at("status");
  return std::find(list.begin(), list.end(), status) != list.end();
}

std::optional<json> ExtractJson(const std::string& output, std::string* error) {
  std::vector<json> found;
  std::string first_parse_error;
  size_t pos = 0;
  while (pos < output.size()) {
    size_t line_end = output.find('\n', pos);
    if (line_end == std::string::npos) line_end = output.size();
    size_t first = output.find_first_not_of(" \t\r", pos);
    if (first < line_end && output[first] == '{') {
      size_t end = MatchingBrace(output, first);
      if (end != std::string::npos) {
        try {
          json doc = json::parse(output.begin() + first, output.begin() + end);
          if (doc.is_object()) {
            found.push_back(std::move(doc));
            // Continue after the document (it may span many lines).
            pos = output.find('\n', end - 1);
            if (pos == std::string::npos) break;
            ++pos;
            continue;
          }
        } catch (const std::exception& e) {
          if (first_parse_error.empty()) first_parse_error = e.what();
        }
      }
    }
    pos = line_end + 1;
  }
  if (found.size() == 1) return std::move(found[0]);
  if (found.empty()) {
    *error = "no JSON document in the output" +
             (first_parse_error.empty() ? std::string()
                                        : " (a candidate did not parse: " + first_parse_error + ")");
  } else {
    *error = std::to_string(found.size()) + " JSON documents in the output, expected exactly one";
  }
  return std::nullopt;
}

namespace {

std::string FrameText(const json& f) {
  auto str = [&](const char* k) {
    auto it = f.find(k);
    if (it == f.end()) return std::string("<no ") + k + ">";
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  return str("qualname") + " (name " + str("name") + ") " + str("filename") + ":" + str("line");
}

bool SameFrame(const json& truth, const json& tool) {
  for (const char* k : {"filename", "line", "name", "qualname"}) {
    auto t = truth.find(k);
    auto p = tool.find(k);
    if (t == truth.end() || p == tool.end() || *t != *p) return false;
  }
  return true;
}

std::string ThreadLabel(const json& t) {
  std::string label = "thread " + t.value("native_id", json()).dump();
  if (t.contains("role")) label += " role=" + t["role"].get<std::string>();
  if (t.contains("name")) label += " name=" + t["name"].dump();
  return label;
}

}  // namespace

std::string CompareWithTruth(const json& truth, const json& tool) {
  std::ostringstream diff;
  try {
    // pyunwind's threads, from every interpreter, by native_id.
    std::map<int64_t, json> tool_threads;
    if (!tool.contains("interpreters") || !tool["interpreters"].is_array()) {
      return "pyunwind's JSON has no \"interpreters\" array: " + Tail(tool.dump(), 500) + "\n";
    }
    for (const auto& interp : tool["interpreters"]) {
      for (const auto& t : interp.value("threads", json::array())) {
        if (!t.contains("native_id") || !t["native_id"].is_number_integer()) {
          diff << "pyunwind shows a thread without a native_id: " << Tail(t.dump(), 300) << "\n";
          continue;
        }
        int64_t id = t["native_id"].get<int64_t>();
        if (tool_threads.count(id)) diff << "pyunwind shows thread " << id << " twice\n";
        tool_threads[id] = t;
      }
    }
    if (tool.contains("python") && truth.contains("python") &&
        tool["python"].value("hexversion", json()) != truth["python"].value("hexversion", json())) {
      diff << "python.hexversion: truth " << truth["python"].value("hexversion", json()).dump()
           << ", pyunwind " << tool["python"].value("hexversion", json()).dump() << "\n";
    }

    if (truth.at("threads").empty()) diff << "the truth has no threads: nothing to compare\n";
    std::set<int64_t> truth_ids;
    for (const auto& t : truth.at("threads")) {
      int64_t id = t.at("native_id").get<int64_t>();
      truth_ids.insert(id);
      auto it = tool_threads.find(id);
      if (it == tool_threads.end()) {
        diff << ThreadLabel(t) << ": missing from pyunwind's output\n";
        continue;
      }
      // The threading name the process recorded (Thread.name), where the truth has one.
      if (t.contains("name") && it->second.value("name", json()) != t["name"]) {
        diff << ThreadLabel(t) << ": name: truth " << t["name"].dump() << ", pyunwind "
             << it->second.value("name", json()).dump() << "\n";
      }
      json tool_frames = json::array();
      for (const auto& f : it->second.value("frames", json::array())) {
        if (f.value("kind", std::string("python")) == "python") tool_frames.push_back(f);
      }
      const json& truth_frames = t.at("frames");
      bool same = tool_frames.size() == truth_frames.size();
      for (size_t i = 0; same && i < truth_frames.size(); ++i) {
        same = SameFrame(truth_frames[i], tool_frames[i]);
      }
      if (same) continue;
      diff << ThreadLabel(t) << ": frames differ (truth " << truth_frames.size()
           << ", pyunwind " << tool_frames.size() << "; innermost first, '!' marks a difference)";
      if (it->second.contains("error")) diff << " pyunwind error: " << it->second["error"].dump();
      diff << "\n";
      // Each differing frame with one matching frame of context either side; longer runs
      // of matching frames are folded into one line (scale.py has 1,500-frame stacks).
      size_t n = std::max(truth_frames.size(), tool_frames.size());
      std::vector<bool> ok(n);
      for (size_t i = 0; i < n; ++i) {
        ok[i] = i < truth_frames.size() && i < tool_frames.size() &&
                SameFrame(truth_frames[i], tool_frames[i]);
      }
      size_t shown = 0;
      for (size_t i = 0; i < n;) {
        bool near_difference = !ok[i] || (i > 0 && !ok[i - 1]) || (i + 1 < n && !ok[i + 1]);
        if (!near_difference) {
          size_t j = i;
          while (j < n && ok[j] && !(j + 1 < n && !ok[j + 1])) ++j;
          if (j - i >= 2) {
            diff << "    #" << i << "-#" << (j - 1) << ": " << (j - i) << " frames the same\n";
            i = j;
            continue;
          }
        }
        if (++shown > 60) {
          diff << "    ... (more differences left out)\n";
          break;
        }
        diff << (ok[i] ? "    #" : "  ! #") << i << "\n";
        diff << "      truth:    " << (i < truth_frames.size() ? FrameText(truth_frames[i]) : "-")
             << "\n";
        if (!ok[i]) {
          diff << "      pyunwind: " << (i < tool_frames.size() ? FrameText(tool_frames[i]) : "-")
               << "\n";
        }
        ++i;
      }
    }
    for (const auto& [id, t] : tool_threads) {
      if (!truth_ids.count(id)) {
        diff << "thread " << id << ": shown by pyunwind (" << t.value("frames", json::array()).size()
             << " frames) but not in the truth\n";
      }
    }
  } catch (const std::exception& e) {
    diff << "malformed JSON (" << e.what() << ")\n";
  }
  return diff.str();
}

std::string PyBtAllMismatch(Debugger d, const Install& install, const Target& target,
                            const json& truth) {
  RunResult r = RunDebugger(d, install, target, {"py-bt --all --json"});
  if (!r.exited) return "the debugger did not exit normally\n" + r.Describe();
  std::string error;
  auto doc = ExtractJson(r.out, &error);
  if (!doc) return error + "\n" + r.Describe();
  std::string diff = CompareWithTruth(truth, *doc);
  if (diff.empty()) return "";
  return "py-bt --all --json differs from the truth:\n" + diff + "command: " + r.command;
}

std::vector<std::string> LinesContaining(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

size_t Occurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

std::string SanitizeName(const std::string& s) {
  std::string out;
  for (char c : s) out += (isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

}  // namespace pyunwind_e2e

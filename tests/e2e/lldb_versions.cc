#include "tests/e2e/lldb_versions.h"

#include <cstdlib>

namespace pyunwind_e2e {

namespace {

std::string CacheDir() {
  const char* cache = std::getenv("PYUNWIND_LLDB_CACHE");
  return cache && *cache ? cache : "/var/cache/pyunwind-lldb";
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

std::optional<Lldb> FindLldb(int major, std::string* why) {
  Lldb lldb;
  lldb.major = major;
  const std::string n = std::to_string(major);
  const std::string root = major == 14 ? "" : CacheDir() + "/" + n;
  // Its Python package (python3-lldb-N) for Python 3.11, as a shim under the test's temp dir:
  // the package's files, and lldb/_lldb (and lldb/native/_lldb, 22's layout)
  // linked straight to liblldb-N.so.1, since Debian's python3.11 links of 14-19 point at a
  // liblldb.so that only liblldb-N-dev has (14, 15: one that does not exist at all).
  const std::string liblldb = root + "/usr/lib/x86_64-linux-gnu/liblldb-" + n + ".so.1";
  for (const char* sub : {"python3.11/site-packages", "python3.11/dist-packages"}) {
    const std::string init = root + "/usr/lib/llvm-" + n + "/lib/" + sub + "/lldb/__init__.py";
    if (!lldb.python_dir.empty() || !FileExists(init) || !FileExists(liblldb)) continue;
    const std::string shim = TempDir() + "/python-lldb-" + n;
    const std::string so = "_lldb.cpython-311-x86_64-linux-gnu.so";
    RunResult made = RunCommand(
        {"sh", "-c",
         "mkdir -p \"$1/lldb/native\" && for f in \"$2\"/*; do case ${f##*/} in "
         "_lldb*|native) ;; *) ln -sf \"$f\" \"$1/lldb/\" ;; esac; done && "
         "ln -sf \"$3\" \"$1/lldb/$4\" && ln -sf \"$3\" \"$1/lldb/native/$4\" && "
         ": > \"$1/lldb/native/__init__.py\"",
         "sh", shim, init.substr(0, init.rfind('/')), liblldb, so},
        30);
    if (made.exited && made.exit_code == 0) lldb.python_dir = shim;
  }
  if (major == 14) {
    lldb.path = "/usr/lib/llvm-14/bin/lldb";
    if (!FileExists(lldb.path)) {
      *why = "LLDB 14 is not installed (" + lldb.path + "; apt-get install lldb)";
      return std::nullopt;
    }
  } else if (const std::string dir = CacheDir() + "/" + n; FileExists(dir + "/lldb")) {
    // Debian unstable's (21, 23): wrappers that run it on unstable's own C library.
    lldb.path = dir + "/lldb";
    if (!FileExists(dir + "/.complete")) {
      *why = "LLDB " + n + " in " + dir + " is incomplete (run .ci/fetch-lldbs " + n + ")";
      return std::nullopt;
    }
    lldb.env["LLDB_DEBUGSERVER_PATH"] = dir + "/lldb-server";
  } else {
    lldb.path = dir + "/usr/lib/llvm-" + n + "/bin/lldb";
    if (!FileExists(dir + "/.complete") || !FileExists(lldb.path)) {
      *why = "LLDB " + n + " is not in " + dir + " (run .ci/fetch-lldbs " + n + ")";
      return std::nullopt;
    }
    lldb.env["LD_LIBRARY_PATH"] =
        dir + "/usr/lib/x86_64-linux-gnu:" + dir + "/usr/lib/llvm-" + n + "/lib";
    // Its own lldb-server for live processes, never Debian's 14.
    lldb.env["LLDB_DEBUGSERVER_PATH"] = dir + "/usr/lib/llvm-" + n + "/bin/lldb-server";
  }
  std::map<std::string, std::string> env = CleanEnv();
  for (const auto& [k, v] : lldb.env) env[k] = v;
  RunResult r = RunCommand({lldb.path, "--version"}, 60, env);
  lldb.version = FirstLine(r.out);
  if (!r.exited || r.exit_code != 0 || lldb.version.rfind("lldb version " + n + ".", 0) != 0) {
    *why = "LLDB " + n + " at " + lldb.path + " does not run (" + r.Status() + ": " +
           FirstLine(r.out + r.err) + ")";
    return std::nullopt;
  }
  return lldb;
}

std::optional<Lldb> FindBullseyeLldb(int major, std::string* why) {
  const std::string n = std::to_string(major);
  const std::string dir = CacheDir() + "/bullseye-" + n;
  if (std::getenv("PYUNWIND_ASAN_PRELOAD")) {
    *why = "--config=asan: the instrumented plugin needs this machine's libasan, which needs a "
           "newer glibc than Debian 11's own 2.31 that this LLDB runs on";
    return std::nullopt;
  }
  if (!FileExists(dir + "/.complete") || !FileExists(dir + "/lldb")) {
    *why = "Debian 11's LLDB " + n + " is not in " + dir + " (run .ci/fetch-lldbs bullseye-" + n + ")";
    return std::nullopt;
  }
  Lldb lldb;
  lldb.major = major;
  lldb.path = dir + "/lldb";  // the wrapper: Debian 11's loader and libraries
  lldb.env["LLDB_DEBUGSERVER_PATH"] = dir + "/lldb-server";
  std::map<std::string, std::string> env = CleanEnv();
  for (const auto& [k, v] : lldb.env) env[k] = v;
  RunResult r = RunCommand({lldb.path, "--version"}, 60, env);
  lldb.version = FirstLine(r.out);
  if (!r.exited || r.exit_code != 0 || lldb.version.rfind("lldb version " + n + ".", 0) != 0) {
    *why = lldb.path + " does not run (" + r.Status() + ": " + FirstLine(r.out + r.err) + ")";
    return std::nullopt;
  }
  lldb.version += " (Debian 11, glibc 2.31)";
  return lldb;
}

RunResult RunLldb(const Lldb& lldb, const Install& install, const Target& target,
                  const std::vector<std::string>& commands, double timeout_s,
                  const std::map<std::string, std::string>& extra_env) {
  std::vector<std::string> argv = DebuggerArgv(Debugger::kLldb, install, target, commands);
  argv[0] = lldb.path;
  std::map<std::string, std::string> env = DebuggerEnv();
  for (const auto& [k, v] : lldb.env) env[k] = v;
  for (const auto& [k, v] : extra_env) env[k] = v;
  return RunCommand(argv, timeout_s, env);
}

}  // namespace pyunwind_e2e

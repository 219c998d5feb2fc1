#include "tests/e2e/gdb_versions.h"

#include <cstdlib>

namespace pyunwind_e2e {

namespace {

std::string CacheDir() {
  const char* cache = std::getenv("PYUNWIND_GDB_CACHE");
  return cache && *cache ? cache : "/var/cache/pyunwind-gdb";
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

const std::vector<GdbRelease>& TestedGdbReleases() {
  static const std::vector<GdbRelease> releases = {
      {"bullseye", false}, {"bullseye", true}, {"trixie", false}, {"sid", false}};
  return releases;
}

std::optional<Gdb> FindGdb(const GdbRelease& release, std::string* why) {
  const std::string dir = CacheDir() + "/" + release.suite;
  Gdb gdb{release, dir + (release.host_libc ? "/gdb-host-libc" : "/gdb"), ""};
  if (!FileExists(dir + "/.complete") || !FileExists(gdb.path)) {
    *why = "the GDB of Debian " + release.suite + " is not in " + dir +
           " (run .ci/fetch-gdbs " + release.suite + ")";
    return std::nullopt;
  }
  if (!release.host_libc && release.suite == "bullseye" && std::getenv("PYUNWIND_ASAN_PRELOAD")) {
    *why = "--config=asan: the instrumented bridge needs this machine's libasan, which needs a "
           "newer glibc than Debian 11's own 2.31 that this GDB runs on";
    return std::nullopt;
  }
  RunResult r = RunCommand({gdb.path, "--version"}, 60, CleanEnv());
  gdb.version = FirstLine(r.out);
  if (!r.exited || r.exit_code != 0 || gdb.version.rfind("GNU gdb", 0) != 0) {
    *why = gdb.path + " does not run (" + r.Status() + ": " + FirstLine(r.out + r.err) + ")";
    return std::nullopt;
  }
  return gdb;
}

RunResult RunGdb(const Gdb& gdb, const Install& install, const Target& target,
                 const std::vector<std::string>& commands, double timeout_s) {
  std::vector<std::string> argv = DebuggerArgv(Debugger::kGdb, install, target, commands);
  argv[0] = gdb.path;
  return RunCommand(argv, timeout_s, DebuggerEnv());
}

}  // namespace pyunwind_e2e

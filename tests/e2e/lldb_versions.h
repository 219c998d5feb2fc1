// The LLDB majors the one plugin binary is tested in: Debian's default LLDB 14 (/usr/bin/lldb)
// and the other majors .ci/fetch-lldbs unpacks side by side into $PYUNWIND_LLDB_CACHE/N
// (default /var/cache/pyunwind-lldb/N), each run with its own LD_LIBRARY_PATH (Debian 12's)
// or through the wrapper that runs it on its own C library (Debian unstable's 21 and 23).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {

// Every LLDB 14..22 Debian 12 packages, and Debian unstable's 21 and 23.
inline const std::vector<int>& TestedLldbMajors() {
  static const std::vector<int> majors = {14, 15, 16, 19, 21, 22, 23};
  return majors;
}

struct Lldb {
  int major = 0;
  std::string path;                         // the lldb binary
  std::map<std::string, std::string> env;   // what it needs on top of DebuggerEnv()
  std::string version;                      // its `lldb --version` line
  // A PYTHONPATH for `import lldb` of this LLDB under Python 3.11 (python3-lldb-N); "" if none.
  std::string python_dir;
};

// LLDB `major`, or nullopt and *why (one line: what is missing and how to get it).
std::optional<Lldb> FindLldb(int major, std::string* why);

// Debian 11's own LLDB `major` (16) on Debian 11's own C library, glibc 2.31 (.ci/fetch-lldbs
// bullseye-16: $PYUNWIND_LLDB_CACHE/bullseye-16), or nullopt and *why. Not under --config=asan:
// this machine's libasan, which the instrumented plugin needs, needs a newer glibc.
std::optional<Lldb> FindBullseyeLldb(int major, std::string* why);

// Runs that LLDB in batch mode with pyunwind loaded (DebuggerArgv's LLDB command line with
// its own binary, DebuggerEnv() plus its library path and `extra_env`).
RunResult RunLldb(const Lldb& lldb, const Install& install, const Target& target,
                  const std::vector<std::string>& commands, double timeout_s = 180,
                  const std::map<std::string, std::string>& extra_env = {});

}  // namespace pyunwind_e2e

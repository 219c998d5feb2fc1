// The GDBs the bridge is tested in beyond Debian 12's GDB 13 (/usr/bin/gdb, every other
// test's): the GDB of Debian 11 (10.1), Debian 13 (16) and unstable (18) that .ci/fetch-gdbs
// unpacks side by side into $PYUNWIND_GDB_CACHE/SUITE (default /var/cache/pyunwind-gdb), each
// run by the wrapper it writes there.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {

struct GdbRelease {
  std::string suite;       // "bullseye", "trixie", "sid"
  // Debian 11's GDB on this machine's newer C library (fetch-gdbs' gdb-host-libc) rather than
  // its own glibc 2.31 (what a user of Debian 11 has; the bridge is built for it).
  bool host_libc = false;
};

// Debian 11's GDB 10.1 on its own C library and on this machine's, Debian 13's 16 and
// unstable's 18.
const std::vector<GdbRelease>& TestedGdbReleases();

struct Gdb {
  GdbRelease release;
  std::string path;     // fetch-gdbs' wrapper
  std::string version;  // its `gdb --version` first line
};

// The GDB of `release`, or nullopt and *why (one line: what is missing and how to get it).
std::optional<Gdb> FindGdb(const GdbRelease& release, std::string* why);

// Runs that GDB in batch mode with pyunwind's script sourced (DebuggerArgv's GDB command line
// with its wrapper, DebuggerEnv()).
RunResult RunGdb(const Gdb& gdb, const Install& install, const Target& target,
                 const std::vector<std::string>& commands, double timeout_s = 180);

}  // namespace pyunwind_e2e

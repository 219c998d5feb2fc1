// What the scenario-against-truth tests (fixture cores, asyncio, locals, the GIL) run on: a
// scenario live under a local interpreter, or one fixture core of it, in one debugger. A live
// scenario is started once per test binary; fixture cores are decompressed one at a time, so
// the cases of one core are kept next to each other.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {

// The fixture versions (directories of <shared>/fixtures/cores) that hold a core and a truth
// of `scenario`, sorted.
std::vector<std::string> FixtureVersions(const std::string& scenario);

struct SourceCase {
  std::string scenario;  // "asyncio_tree", "locals", "threads", ...
  // Live: "debian_3_11" (/usr/bin/python3.11), "debian_3_11d" (/usr/bin/python3.11d, Debian's
  // debug build) or "pyenv_3_11_7"; else a fixture version.
  std::string source;
  bool live = false;
  Debugger debugger = Debugger::kLldb;
  // Live sources only: read a gcore core of the live process (without the executable).
  bool gcore = false;
  std::string CoreDir() const;
};

void PrintTo(const SourceCase& c, std::ostream* os);
// "live_debian_3_11_lldb", "gcore_debian_3_11d_gdb", "core_3_14_7t_gdb", ...
std::string SourceCaseName(const ::testing::TestParamInfo<SourceCase>& info);

// The live sources given, then every fixture core of `scenario`, each in LLDB and GDB.
std::vector<SourceCase> SourceCases(const std::string& scenario,
                                    const std::vector<std::string>& live_sources);

// Each live source, read live and from a gcore core of it, in LLDB and GDB (no fixture cores).
std::vector<SourceCase> LiveAndGcoreCases(const std::string& scenario,
                                          const std::vector<std::string>& live_sources);

// What each suite over other debugger releases (gdb_versions_test, lldb_versions_test) runs
// in `debugger`: the live Debian 3.11 `threads` scenario, the 3.12.6 and 3.15.2 `threads`
// cores (`py-bt`) and the 3.14.7 `asyncio_tree` core (`py-tasks`, `tasks` set).
struct ReleaseSource {
  SourceCase source;
  bool tasks = false;
};
std::vector<ReleaseSource> ReleaseSources(Debugger debugger);

struct Source {
  std::unique_ptr<Scenario> scenario;  // live
  std::string core;                    // a fixture core, decompressed
  std::string gcore;                   // live: its gcore core, once a case asked for it
  json truth;
  std::string error;
};

class Sources {
 public:
  // The source of `c`, or nullptr and *error; an *error starting "skip: " means that what
  // the case needs is not installed here (the test skips, saying why).
  static const Source* Of(const SourceCase& c, std::string* error);
  // Stops the live scenarios and deletes the decompressed core (TearDownTestSuite).
  static void ForgetAll();
};

// What the debugger opens for `c`: the live process, or the core without an executable
// (most of the fixture interpreters are not installed here).
Target TargetOf(const SourceCase& c, const Source& source);

// The fixture of a test over SourceCases: SetUp() installs pyunwind and finds the case's
// source (the test is skipped, saying why, when the source needs what is not installed).
class SourceTest : public ::testing::TestWithParam<SourceCase> {
 public:
  static void TearDownTestSuite() { Sources::ForgetAll(); }

 protected:
  void SetUp() override;
  const Install& install() const { return *install_; }
  const Source& source() const { return *source_; }
  const json& truth() const { return source_->truth; }
  Target target() const { return TargetOf(GetParam(), *source_); }

 private:
  const Install* install_ = nullptr;
  const Source* source_ = nullptr;
};

}  // namespace pyunwind_e2e

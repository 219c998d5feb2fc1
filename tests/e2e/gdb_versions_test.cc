// The one GDB bridge of `//:install` in the GDBs of other Debian releases (.ci/fetch-gdbs):
// Debian 11's GDB 10.1 (on this machine's C library), Debian 13's GDB 16 and unstable's GDB 18,
// each against the truth:
//   * `py-bt --all --json` and plain `bt` (its `[Python: ...]` decoration) on a live Debian
//     /usr/bin/python3.11 threads scenario,
//   * `py-bt --all --json` on the 3.12.6 and 3.15.2 threads fixture cores (no executable),
//   * `py-tasks --json` on the 3.14.7 asyncio_tree fixture core;
// Debian 11's GDB runs each case twice: on its own C library (glibc 2.31, what the shipped files
// are built for: toolchain/README.md) and on this machine's. GDB 13 is every other test's. A
// case whose GDB cannot be had here is skipped, saying why.
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/e2e/gdb_versions.h"
#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_sources.h"
#include "tests/e2e/truth_checks.h"

namespace pyunwind_e2e {
namespace {

enum class Check { kPyBtAndDecoration, kPyBt, kPyTasks };

struct VersionCase {
  SourceCase source;
  Check check;
  GdbRelease release;
};

void PrintTo(const VersionCase& c, std::ostream* os) {
  *os << "GDB of Debian " << c.release.suite << (c.release.host_libc ? " (host libc)" : "")
      << ", ";
  PrintTo(c.source, os);
}

std::string CaseName(const ::testing::TestParamInfo<VersionCase>& info) {
  const SourceCase& s = info.param.source;
  const GdbRelease& r = info.param.release;
  const bool own_libc_of_older = r.suite == "bullseye" && !r.host_libc;
  return SanitizeName("gdb_" + r.suite + (own_libc_of_older ? "_own_libc_" : "_") +
                      (s.live ? "live_" : "core_") + s.source + "_" + s.scenario);
}

// Sources outer, releases inner: a fixture core is decompressed once for all GDBs.
std::vector<VersionCase> Cases() {
  std::vector<VersionCase> cases;
  for (const ReleaseSource& s : ReleaseSources(Debugger::kGdb)) {
    const Check check = s.tasks         ? Check::kPyTasks
                        : s.source.live ? Check::kPyBtAndDecoration
                                        : Check::kPyBt;
    for (const GdbRelease& release : TestedGdbReleases()) cases.push_back({s.source, check, release});
  }
  return cases;
}

class GdbVersions : public ::testing::TestWithParam<VersionCase> {
 public:
  static void TearDownTestSuite() { Sources::ForgetAll(); }
};

TEST_P(GdbVersions, MatchesTruth) {
  const VersionCase& c = GetParam();
  std::string why;
  const std::optional<Gdb> gdb = FindGdb(c.release, &why);
  if (!gdb) GTEST_SKIP() << why;
  const Install* install = nullptr;
  const Source* source = nullptr;
  FindInstallAndSource(c.source, &install, &source);
  if (source == nullptr) return;

  const std::string command = c.check == Check::kPyTasks ? "py-tasks --json" : "py-bt --all --json";
  std::vector<std::string> commands = {command};
  if (c.check == Check::kPyBtAndDecoration) commands.push_back("bt");
  RunResult r = RunGdb(*gdb, *install, TargetOf(c.source, *source), commands);
  ASSERT_NO_FATAL_FAILURE(ExpectJsonAsTruth(r, command, gdb->version, source->truth));
  if (c.check == Check::kPyBtAndDecoration) {
    // The main thread's eval-loop frames carry its Python frames (GDB 10 has no
    // Frame.level(): the filter counts levels itself there).
    EXPECT_NE(r.out.find("_PyEval_EvalFrameDefault [Python: "), std::string::npos)
        << gdb->version << ": plain bt has no Python frames\n" << r.Describe();
  }
  EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << gdb->version << "\n" << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Releases, GdbVersions, ::testing::ValuesIn(Cases()), CaseName);

// Debian 11's GDB on its own glibc 2.31 loads the bridge (built against that glibc): `source`
// prints no `pyunwind:` line and no traceback, and `pyunwind version` names this GDB. (Before
// the glibc 2.31 toolchain it printed `pyunwind: cannot load ...: version 'GLIBC_2.32' not found`.)
TEST(GdbOnOlderGlibc, LoadsTheBridge) {
  std::string why;
  const std::optional<Gdb> gdb = FindGdb({"bullseye", false}, &why);
  if (!gdb) GTEST_SKIP() << why;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  RunResult r = RunGdb(*gdb, *install, Target{}, {"pyunwind version", "echo after\\n"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << gdb->version << "\n" << r.Describe();
  EXPECT_TRUE(LinesContaining(r.out + r.err, "pyunwind: ").empty()) << r.Describe();
  EXPECT_NE(r.out.find("running in GDB 10.1"), std::string::npos) << r.Describe();
  EXPECT_EQ((r.out + r.err).find("Traceback"), std::string::npos) << r.Describe();
  EXPECT_NE(r.out.find("after"), std::string::npos) << r.Describe();
}

}  // namespace
}  // namespace pyunwind_e2e

// The fixture cores of every CPython version (<shared>/fixtures/cores/VERSION/{threads,scale}),
// read without their executables (which are not on this machine): `py-bt --all --json` in
// LLDB and GDB must match the truth.json captured with each core.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_sources.h"

namespace pyunwind_e2e {
namespace {

class FixtureCores : public ::testing::TestWithParam<SourceCase> {
 public:
  static void TearDownTestSuite() { Sources::ForgetAll(); }
};

TEST_P(FixtureCores, PyBtAllJsonMatchesTruth) {
  const SourceCase& c = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Source* source = Sources::Of(c, &error);
  ASSERT_NE(source, nullptr) << error;
  const std::string mismatch =
      PyBtAllMismatch(c.debugger, *install, TargetOf(c, *source), source->truth);
  EXPECT_TRUE(mismatch.empty()) << c.CoreDir() << "/truth.json: " << mismatch;
}

INSTANTIATE_TEST_SUITE_P(Threads, FixtureCores, ::testing::ValuesIn(SourceCases("threads", {})),
                         SourceCaseName);
INSTANTIATE_TEST_SUITE_P(Scale, FixtureCores, ::testing::ValuesIn(SourceCases("scale", {})),
                         SourceCaseName);

// With no cores found, the suites above would be empty and pass silently.
TEST(FixtureCoresPresent, SharedFixturesAreThere) {
  for (const char* scenario : {"threads", "scale"}) {
    EXPECT_FALSE(FixtureVersions(scenario).empty())
        << "no " << scenario << " fixture cores under " << SharedDir()
        << "/fixtures/cores (set PYUNWIND_SHARED_DIR?)";
  }
}

}  // namespace
}  // namespace pyunwind_e2e

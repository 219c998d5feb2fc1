// The fixture cores of every CPython version (<shared>/fixtures/cores/VERSION/{threads,scale}),
// read without their executables (which are not on this machine): `py-bt --all --json` in
// LLDB and GDB must match the truth.json captured with each core.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_sources.h"

namespace pyunwind_e2e {
namespace {

class FixtureCores : public SourceTest {};

TEST_P(FixtureCores, PyBtAllJsonMatchesTruth) {
  const std::string mismatch = PyBtAllMismatch(GetParam().debugger, install(), target(), truth());
  EXPECT_TRUE(mismatch.empty()) << GetParam().CoreDir() << "/truth.json: " << mismatch;
}

INSTANTIATE_TEST_SUITE_P(Threads, FixtureCores, ::testing::ValuesIn(SourceCases("threads", {})),
                         SourceCaseName);
INSTANTIATE_TEST_SUITE_P(Scale, FixtureCores, ::testing::ValuesIn(SourceCases("scale", {})),
                         SourceCaseName);

// Without ../shared the suites above are empty; the test below says why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureCores);

// With no cores found, the suites above would be empty and pass silently.
TEST(FixtureCoresPresent, SharedFixturesAreThere) {
  if (!SharedPresent()) GTEST_SKIP() << SharedMissing();
  for (const char* scenario : {"threads", "scale"}) {
    EXPECT_FALSE(FixtureVersions(scenario).empty())
        << "no " << scenario << " fixture cores under " << SharedDir()
        << "/fixtures/cores (set PYUNWIND_SHARED_DIR?)";
  }
}

}  // namespace
}  // namespace pyunwind_e2e

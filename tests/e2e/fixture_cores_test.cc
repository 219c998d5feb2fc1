// The fixture cores of every CPython version (<shared>/fixtures/cores/VERSION/{threads,scale}),
// read without their executables (which are not on this machine): `py-bt --all --json` in
// LLDB and GDB must match the truth.json captured with each core.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

// LLDB: pyunwind reads the core file LLDB loaded itself (lldb_plugin/core_file.h), found among
// LLDB's mappings and checked against LLDB's view; the JSON above is read that way.
class LldbCoreFile : public SourceTest {};

TEST_P(LldbCoreFile, IsReadDirectly) {
  const RunResult run = RunDebugger(Debugger::kLldb, install(), target(), {"py-bt --all -v --limit 1"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  // /proc/self/maps names the file by its canonical path.
  const std::string core = std::filesystem::canonical(target().core).string();
  const std::string want = "memory: the core file " + core + ", read directly";
  EXPECT_NE(run.out.find(want), std::string::npos) << want << "\n" << run.Describe();
}

std::vector<SourceCase> InLldb(std::vector<SourceCase> cases) {
  std::erase_if(cases, [](const SourceCase& c) { return c.debugger != Debugger::kLldb; });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Threads, LldbCoreFile, ::testing::ValuesIn(InLldb(SourceCases("threads", {}))),
                         SourceCaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LldbCoreFile);

// The CPython builds whose "core" cells the CI support matrix of docs/support.md marks ✔ (its
// first table): {version as the fixture directories name it, a default build (not
// free-threaded, not shared)}.
std::vector<std::pair<std::string, bool>> MatrixCoreBuilds() {
  std::vector<std::pair<std::string, bool>> builds;
  std::istringstream support(ReadFile(ProjectFile("docs/support.md")));
  std::string line;
  bool in_matrix = false;
  while (std::getline(support, line)) {
    if (line == "## The matrix") in_matrix = true;
    if (in_matrix && line.rfind("**What a machine with pyenv", 0) == 0) break;
    if (!in_matrix || line.rfind("| 3.", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) {
      cells.push_back(cell.substr(cell.find_first_not_of(' ')));
    }
    // | CPython | build | live x2 | core+exe x2 | core LLDB | core GDB |
    if (cells.size() < 8 || cells[6].rfind("✔", 0) != 0) continue;
    const std::string version = cells[0].substr(0, cells[0].find(' '));
    const bool default_build = cells[1].find("free-threaded") == std::string::npos &&
                               cells[1].find("shared") == std::string::npos;
    builds.push_back({version, default_build});
  }
  return builds;
}

// The suites above test the cores they find: a build whose cores went missing would lose its
// ✔ silently. Every build the matrix claims must have its cores: `threads` for every build,
// `scale` for the default ones (as docs/support.md says).
TEST(FixtureCoresPresent, EveryBuildTheMatrixClaims) {
  if (!SharedPresent()) GTEST_SKIP() << SharedMissing();
  const auto builds = MatrixCoreBuilds();
  ASSERT_GE(builds.size(), 9u) << "the support matrix of docs/support.md was not parsed";
  const std::vector<std::string> threads = FixtureVersions("threads");
  const std::vector<std::string> scale = FixtureVersions("scale");
  auto has = [](const std::vector<std::string>& list, const std::string& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  for (const auto& [version, default_build] : builds) {
    EXPECT_TRUE(has(threads, version))
        << "docs/support.md claims " << version << " cores, but there is no " << SharedDir()
        << "/fixtures/cores/" << version << "/threads";
    if (default_build) {
      EXPECT_TRUE(has(scale, version))
          << "no " << SharedDir() << "/fixtures/cores/" << version << "/scale";
    }
  }
}

}  // namespace
}  // namespace pyunwind_e2e

// py-bt --locals --json on every `locals` fixture core
// (<shared>/fixtures/cores/VERSION/locals/core.xz), read by ElfCoreTarget
// without a debugger, against the scenario's truth: for each frame of the
// worker thread, the same local names; for None, bool, int, float, str,
// bytes, tuple, list, dict and set the same repr as Python's repr() (the
// truth cuts reprs at 120 characters), for other objects the same type name.
// Also py-locals and py-list on the same core, and the thread flags.
//
// <shared> is found as in the other fixture tests: PYUNWIND_SHARED_DIR, else
// beside the workspace through fixture_facts.h (anchor: this source file).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"
#include "tests/locals_truth.h"

namespace pyunwind {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr char kThisFile[] = "tests/locals_core_test.cc";

fs::path SharedFixtures() { return testing::SharedFixtures(kThisFile); }

std::vector<std::string> Versions() { return testing::VersionsWithScenario(kThisFile, "locals"); }

using testing::OpenedCore;

class LocalsCore : public ::testing::TestWithParam<std::string> {};

TEST_P(LocalsCore, PyBtLocalsMatchesTruth) {
  const std::string version = GetParam();
  if (version == "none") GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  const fs::path dir = SharedFixtures() / "cores" / version / "locals";
  OpenedCore core(dir, "locals_" + version);
  ASSERT_EQ(core.error(), "");
  const Json& truth = core.truth();
  ASSERT_FALSE(truth.is_null()) << "no truth.json in " << dir;

  uint64_t worker = 0;
  for (const Json& thread : truth.at("threads")) {
    if (thread.at("role") == truth.at("locals").at("role")) worker = thread.at("native_id");
  }
  ASSERT_NE(worker, 0u);
  CommandContext context{core.target(), worker, false, std::nullopt, std::nullopt};
  const CommandOutput output = RunCommand("py-bt", {"--locals", "--json"}, context);
  ASSERT_FALSE(output.failed) << output.text;
  const Json got = Json::parse(output.text);
  ASSERT_EQ(got.at("interpreters").size(), 1u);
  ASSERT_EQ(got.at("interpreters")[0].at("threads").size(), 1u);
  const Json& thread = got.at("interpreters")[0].at("threads")[0];
  EXPECT_EQ(thread.at("native_id"), worker);
  const size_t compared = testing::ExpectLocalsMatchTruth(thread.at("frames"), truth.at("locals"));
  EXPECT_GE(compared, 16u);  // every simple value of innermost, middle and outer
  EXPECT_TRUE(got.at("warnings").empty()) << got.at("warnings").dump();
}

TEST_P(LocalsCore, PyLocalsAndPyListOnTheSelectedFrame) {
  const std::string version = GetParam();
  if (version == "none") GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  const fs::path dir = SharedFixtures() / "cores" / version / "locals";
  OpenedCore core(dir, "locals2_" + version);
  ASSERT_EQ(core.error(), "");
  const Json& truth = core.truth();
  ASSERT_FALSE(truth.is_null()) << "no truth.json in " << dir;
  uint64_t worker = 0;
  for (const Json& thread : truth.at("threads")) {
    if (thread.at("role") == "worker") worker = thread.at("native_id");
  }
  CommandContext context{core.target(), worker, false, std::nullopt, std::nullopt};

  // Frame 2 is middle(): by --frame, and by the selection py-frame keeps.
  CommandOutput text = RunCommand("py-locals", {"--frame", "2"}, context);
  ASSERT_FALSE(text.failed) << text.text;
  EXPECT_NE(text.text.find("in middle\n"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("  names = ['ann', 'bob']\n"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("  total = 14\n"), std::string::npos) << text.text;
  context.selected_python_frame = 2;
  const CommandOutput json = RunCommand("py-locals", {"--json"}, context);
  ASSERT_FALSE(json.failed) << json.text;
  const Json doc = Json::parse(json.text);
  EXPECT_EQ(doc.at("frame").at("qualname"), "middle");
  EXPECT_EQ(doc.at("locals").at("user_id").at("repr"), "-17");

  // py-bt-full is py-bt --locals.
  const CommandOutput full = RunCommand("py-bt-full", {}, context);
  ASSERT_FALSE(full.failed) << full.text;
  EXPECT_NE(full.text.find("    count = 42\n"), std::string::npos) << full.text;

  // py-list: the scenario's file is not on this machine (it was at /opt/fixtures).
  const std::string file = truth.at("threads")[0].at("frames")[1].at("filename");
  const CommandOutput list = RunCommand("py-list", {}, context);
  if (fs::exists(file)) {
    EXPECT_NE(list.text.find(">"), std::string::npos) << list.text;
  } else {
    ASSERT_FALSE(list.failed) << list.text;
    EXPECT_NE(list.text.find("is not on this machine"), std::string::npos) << list.text;
  }
  EXPECT_TRUE(RunCommand("py-locals", {"--frame", "99"}, context).failed);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LocalsCore, ::testing::ValuesIn(Versions()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace pyunwind

// py-bt --all --json on every fixture core (<shared>/fixtures/cores/VERSION/
// SCENARIO/core.xz), read by ElfCoreTarget without a debugger, against the
// scenario's truth.json (what the process itself recorded before it dumped):
//   * every truth thread, by native_id, has exactly the truth's frames
//     (filename, line, name, qualname), innermost first;
//   * every truth thread's threading `name` is the truth's;
//   * python.version and free_threaded are the truth's;
//   * holds_gil is true exactly for the thread whose role is the truth's
//     gil_holder_role (where the truth names one, on a GIL build), and null
//     on every thread of a free-threaded build.
//
// Where <shared> is: PYUNWIND_SHARED_DIR if set; otherwise the directory
// "shared" beside the workspace root. The root is found by resolving the
// runfile symlink of this very source file (it is also a data dependency of
// the test) back to the source tree: <root>/tests/fixture_cores_core_test.cc.
// That keeps the BUILD rule free of absolute paths and works from any
// checkout. The test skips, with the reason, only when <shared>/fixtures/cores
// does not exist.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"

namespace pyunwind {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr char kThisFile[] = "tests/fixture_cores_core_test.cc";

std::string RunfilePath(const std::string& relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return relative;  // run by hand from the workspace root
  return std::string(srcdir) + "/" + (workspace ? workspace : "pyunwind") + "/" + relative;
}

// <shared>/fixtures/cores, or empty with `why` set.
fs::path CoresDir(std::string* why) {
  fs::path shared;
  if (const char* env = std::getenv("PYUNWIND_SHARED_DIR")) {
    shared = env;
  } else {
    std::error_code ec;
    const fs::path source = fs::canonical(RunfilePath(kThisFile), ec);
    if (ec) {
      *why = "cannot resolve " + RunfilePath(kThisFile) + " to the source tree";
      return {};
    }
    shared = source.parent_path().parent_path().parent_path() / "shared";
  }
  const fs::path cores = shared / "fixtures" / "cores";
  std::error_code ec;
  if (!fs::is_directory(cores, ec)) {
    *why = "no fixture cores at " + cores.string() + " (set PYUNWIND_SHARED_DIR)";
    return {};
  }
  return cores;
}

struct Fixture {
  std::string name;  // "v3_11_2_threads"
  fs::path dir;      // holds core.xz and truth.json
};

std::vector<Fixture> FindFixtures() {
  std::vector<Fixture> fixtures;
  std::string why;
  const fs::path cores = CoresDir(&why);
  if (cores.empty()) return {{"none", {}}};  // one case, to skip with the reason
  for (const auto& version : fs::directory_iterator(cores)) {
    if (!version.is_directory()) continue;
    for (const auto& scenario : fs::directory_iterator(version.path())) {
      if (!fs::exists(scenario.path() / "core.xz")) continue;
      std::string name = "v" + version.path().filename().string() + "_" +
                         scenario.path().filename().string();
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      fixtures.push_back({name, scenario.path()});
    }
  }
  std::sort(fixtures.begin(), fixtures.end(),
            [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  if (fixtures.empty()) return {{"none", {}}};
  return fixtures;
}

Json AtOrNull(const Json& array, size_t index) {
  return index < array.size() ? array[index] : Json();
}

// The case's core, opened without a debugger (skipped, with the reason, without fixtures).
class FixtureCore : public ::testing::TestWithParam<Fixture> {
 protected:
  void SetUp() override {
    const Fixture& fixture = GetParam();
    if (fixture.dir.empty()) {
      std::string why;
      CoresDir(&why);
      GTEST_SKIP() << why;
    }
    core_ = std::make_unique<testing::OpenedCore>(fixture.dir, fixture.name);
    ASSERT_EQ(core_->error(), "");
  }
  std::unique_ptr<testing::OpenedCore> core_;
};

Json FrameKey(const Json& frame) {
  return {frame.at("filename"), frame.at("line"), frame.at("name"), frame.at("qualname")};
}

TEST_P(FixtureCore, PyBtMatchesTruth) {
  const Fixture& fixture = GetParam();
  testing::OpenedCore& core = *core_;
  const Json& truth = core.truth();
  ASSERT_FALSE(truth.is_null()) << "no truth.json in " << fixture.dir;

  CommandContext context{core.target(), std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput output = RunCommand("py-bt", {"--all", "--json"}, context);
  ASSERT_FALSE(output.failed) << output.text;
  const Json got = Json::parse(output.text);

  EXPECT_EQ(got.at("python").at("version"), truth.at("python").at("version"));
  const bool free_threaded = truth.at("python").at("free_threaded");
  EXPECT_EQ(got.at("python").at("free_threaded"), free_threaded);

  std::map<uint64_t, Json> threads;
  for (const Json& interp : got.at("interpreters")) {
    for (const Json& thread : interp.at("threads")) {
      if (thread.at("native_id").is_number()) {
        threads[thread.at("native_id").get<uint64_t>()] = thread;
      }
    }
  }
  const bool check_gil = truth.contains("gil_holder_role") && !free_threaded;
  for (const Json& want : truth.at("threads")) {
    const uint64_t native_id = want.at("native_id");
    const std::string role = want.at("role");
    auto found = threads.find(native_id);
    if (found == threads.end()) {
      ADD_FAILURE() << "thread " << native_id << " (" << role << ") is missing";
      continue;
    }
    const Json& thread = found->second;
    if (want.contains("name")) {
      EXPECT_EQ(thread.at("name"), want.at("name")) << "thread " << native_id << " (" << role << ")";
    }
    EXPECT_EQ(thread.at("is_main"), want.at("is_main")) << "thread " << native_id << " (" << role << ")";
    Json want_frames = Json::array(), got_frames = Json::array();
    for (const Json& frame : want.at("frames")) want_frames.push_back(FrameKey(frame));
    for (const Json& frame : thread.at("frames")) {
      if (frame.value("kind", "python") == "python") got_frames.push_back(FrameKey(frame));
    }
    if (want_frames != got_frames) {
      size_t first_difference = 0;
      while (first_difference < want_frames.size() && first_difference < got_frames.size() &&
             want_frames[first_difference] == got_frames[first_difference]) {
        ++first_difference;
      }
      ADD_FAILURE() << "thread " << native_id << " (" << role << "): " << want_frames.size()
                    << " frames in the truth, " << got_frames.size() << " read; first difference"
                    << " at frame " << first_difference << ": truth "
                    << AtOrNull(want_frames, first_difference) << ", read "
                    << AtOrNull(got_frames, first_difference)
                    << (thread.contains("truncated") ? ", truncated: " + thread["truncated"].dump()
                                                     : "");
    }
    if (free_threaded) {
      EXPECT_TRUE(thread.at("holds_gil").is_null()) << "thread " << native_id << " (" << role << ")";
    } else if (check_gil) {
      const bool holder = role == truth.at("gil_holder_role").get<std::string>();
      EXPECT_EQ(thread.at("holds_gil"), holder) << "thread " << native_id << " (" << role << ")";
    }
  }
  // -v says where the main thread was read from, per version.
  const std::string version = truth.at("python").at("version");
  const std::string source = version.rfind("3.11.", 0) == 0 || version.rfind("3.12.", 0) == 0
      ? "_PyRuntime.main_thread (table)"
      : version.rfind("3.13.", 0) == 0
      ? "interp->threads.main (table), agreeing with _PyRuntime.main_thread"
      : "interp->threads.main (_Py_DebugOffsets)";
  const CommandOutput verbose = RunCommand("py-bt", {"--all", "-v", "--no-source"}, context);
  ASSERT_FALSE(verbose.failed) << verbose.text;
  EXPECT_NE(verbose.text.find("warning: interpreter 0: main thread from " + source + "\n"),
            std::string::npos) << verbose.text;
  // --outfile: the same text in the file (never coloured), one line printed.
  const std::string outfile = (testing::TestTempDir() / (fixture.name + ".py-bt")).string();
  context.output_is_terminal = true;
  const CommandOutput to_file =
      RunCommand("py-bt", {"--all", "--outfile=" + outfile, "-v", "--no-source"}, context);
  std::ifstream in(outfile, std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, verbose.text);
  EXPECT_EQ(to_file.text, "py-bt: output written to " + outfile + " (" +
                              std::to_string(verbose.text.size()) + " bytes)\n");
  EXPECT_EQ(RunCommand("py-bt", {"--outfile"}, context).text,
            "pyunwind: py-bt: --outfile needs a file name\n");
  // Only the commands that can print much take it; py-list refuses it and writes nothing.
  const std::string not_written = outfile + ".py-list";
  EXPECT_TRUE(RunCommand("py-list", {"--outfile", not_written}, context).failed);
  EXPECT_FALSE(fs::exists(not_written));
  if (check_gil) {
    // Threads the truth does not list (none expected) must not hold the GIL either.
    for (const auto& [native_id, thread] : threads) {
      bool listed = false;
      for (const Json& want : truth.at("threads")) listed |= want.at("native_id") == native_id;
      if (!listed) { EXPECT_NE(thread.at("holds_gil"), true) << "unlisted thread " << native_id; }
    }
  }
}

// The scenarios other than asyncio_tree never import asyncio: py-tasks says there are no
// tasks, on every version (3.14+ too, where the _asyncio module's debug offsets cannot be
// found in a process that never loaded it); asyncio_tree's cores do have tasks.
TEST_P(FixtureCore, PyTasksKnowsWhetherAsyncioIsImported) {
  const Fixture& fixture = GetParam();
  CommandContext context{core_->target(), std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput json = RunCommand("py-tasks", {"--json"}, context);
  ASSERT_FALSE(json.failed) << json.text;
  const Json got = Json::parse(json.text);
  EXPECT_EQ(got.at("warnings"), Json::array());
  if (fixture.dir.filename() == "asyncio_tree") {
    EXPECT_EQ(got.at("asyncio_imported"), true);
    EXPECT_FALSE(got.at("tasks").empty());
    return;
  }
  EXPECT_EQ(got.at("asyncio_imported"), false);
  EXPECT_EQ(got.at("tasks"), Json::array());
  const CommandOutput text = RunCommand("py-tasks", {}, context);
  EXPECT_FALSE(text.failed);
  EXPECT_EQ(text.text, "no asyncio tasks\n");
}

INSTANTIATE_TEST_SUITE_P(Cores, FixtureCore, ::testing::ValuesIn(FindFixtures()),
                         [](const ::testing::TestParamInfo<Fixture>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace pyunwind

// py-bt --all --group: tests/data/pool.py parks the 24 idle workers of a ThreadPoolExecutor, 3
// threads on one line of a function, one on another line of it, one in Event().wait() and the
// recorder, and records from inside which threads have the same frames. On Debian's 3.11, in
// LLDB and GDB, live and from a gcore core without the executable: the JSON's "groups" are the
// truth's groups (members, counts, frames), largest first and then in thread order; the text
// shows each group once under one title that counts it and names its first 10 threads; a group
// of one is the thread as py-bt --all shows it; --group without --all is refused in one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

constexpr char kScript[] = "tests/data/pool.py";
constexpr char kTitle[] = " threads with this stack: ";

class ThreadGroups : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start(kScript); }
};

// A frame as the truth records it.
json TruthFrame(const json& frame) {
  return {{"filename", frame.at("filename")}, {"line", frame.at("line")},
          {"name", frame.at("name")}, {"qualname", frame.at("qualname")}};
}

// The truth group holding `native_id`, or null.
const json* TruthGroupOf(const json& truth, uint64_t native_id) {
  for (const json& group : truth.at("groups")) {
    for (const json& id : group.at("native_ids")) {
      if (id == native_id) return &group;
    }
  }
  return nullptr;
}

TEST_P(ThreadGroups, GroupsAreTheTruths) {
  const json& truth = scenario_->truth();
  ASSERT_EQ(truth.at("groups").size(), 5u) << truth.dump(1);
  ASSERT_EQ(truth.at("groups").at(0).at("count"), 24) << truth.dump(1);
  RunResult run = RunDebugger(GetParam().debugger, *install_, target_,
                              {"py-bt --all --group --json", "py-bt --all --group --no-source"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got) << error << "\n" << run.Describe();

  // JSON: every thread once, in the group the truth puts it in, with the truth's frames.
  ASSERT_EQ(got->at("interpreters").size(), 1u);
  const json& threads = got->at("interpreters").at(0).at("threads");
  const json& groups = got->at("interpreters").at(0).at("groups");
  ASSERT_EQ(groups.size(), truth.at("groups").size()) << groups.dump();
  std::set<size_t> seen;
  size_t previous_count = SIZE_MAX, previous_first = 0;
  for (const json& group : groups) {
    const std::vector<size_t> indexes = group.at("thread_indexes");
    ASSERT_EQ(group.at("count"), indexes.size());
    ASSERT_FALSE(indexes.empty());
    EXPECT_TRUE(std::is_sorted(indexes.begin(), indexes.end())) << group.dump();
    // Largest first, then by first thread.
    EXPECT_TRUE(indexes.size() < previous_count ||
                (indexes.size() == previous_count && indexes.front() > previous_first))
        << groups.dump();
    previous_count = indexes.size();
    previous_first = indexes.front();
    const json* expected = TruthGroupOf(truth, threads.at(indexes.front()).at("native_id"));
    ASSERT_NE(expected, nullptr) << threads.at(indexes.front()).dump();
    std::set<uint64_t> ids;
    for (size_t i : indexes) {
      EXPECT_TRUE(seen.insert(i).second) << "thread " << i << " in two groups";
      ids.insert(threads.at(i).at("native_id").get<uint64_t>());
    }
    EXPECT_EQ(ids, expected->at("native_ids").get<std::set<uint64_t>>()) << group.dump();
    json frames = json::array();
    for (const json& frame : group.at("frames")) frames.push_back(TruthFrame(frame));
    EXPECT_EQ(frames, expected->at("frames")) << group.dump();
  }
  EXPECT_EQ(seen.size(), threads.size());

  // Text: one title or thread header per group, each followed by its traceback.
  std::map<uint64_t, std::string> names;  // native id -> name
  for (const json& thread : truth.at("threads")) names[thread.at("native_id")] = thread.at("name");
  size_t titles = 0, headers = 0;
  for (const json& group : truth.at("groups")) {
    const size_t count = group.at("count");
    const std::vector<uint64_t> ids = group.at("native_ids");
    if (count == 1) {
      const std::string header =
          "Thread " + std::to_string(ids[0]) + " \"" + names[ids[0]] + "\"";
      size_t shown = 0;
      for (const std::string& line : LinesContaining(run.out, header)) {
        shown += line.rfind(header, 0) == 0;
      }
      EXPECT_EQ(shown, 1u) << header << "\n" << run.out;
      ++headers;
      continue;
    }
    const std::vector<std::string> lines =
        LinesContaining(run.out, std::to_string(count) + kTitle);
    ASSERT_EQ(lines.size(), 1u) << run.out;
    const std::string& line = lines[0];
    ++titles;
    // The first 10 named (each a member of the group), then how many more.
    size_t named = 0;
    for (uint64_t id : ids) {
      named += line.find(std::to_string(id) + " \"" + names[id] + "\"") != std::string::npos;
    }
    EXPECT_EQ(named, std::min<size_t>(count, 10)) << line;
    const std::string more =
        count > 10 ? " and " + std::to_string(count - 10) + " more:" : "\"" + std::string(":");
    EXPECT_EQ(line.substr(line.size() - more.size()), more) << line;
  }
  EXPECT_EQ(titles, 2u);
  EXPECT_EQ(headers, 3u);
  EXPECT_EQ(LinesContaining(run.out, "Traceback (most recent call first):").size(),
            titles + headers)
      << run.out;
}

TEST_P(ThreadGroups, GroupWithoutAllIsRefusedInOneLine) {
  const RunResult run = RunDebugger(GetParam().debugger, *install_, target_, {"py-bt --group"});
  ASSERT_TRUE(run.exited) << run.Describe();
  const std::vector<std::string> lines = LinesContaining(run.out + run.err, "pyunwind:");
  ASSERT_EQ(lines.size(), 1u) << run.Describe();
  EXPECT_NE(lines[0].find("pyunwind: py-bt: --group groups the threads of --all: use py-bt --all "
                          "--group"),
            std::string::npos)
      << lines[0];
  EXPECT_TRUE(LinesContaining(run.out, "Traceback").empty()) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Pool, ThreadGroups, ::testing::ValuesIn(MatrixCells({"debian_3.11"})),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e

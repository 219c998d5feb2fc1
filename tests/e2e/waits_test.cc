// py-waits against what tests/data/waits.py records about itself, on Debian's 3.11 and pyenv's
// 3.12.1 and 3.13.0 (where installed), live and from a gcore core, in LLDB and GDB:
//   * Deadlocks (waits.py): an RLock-order deadlock between worker-1 (in `with R2:`) and
//     worker-2 (in R1.acquire()), joiner joining joinee which waits for an RLock joiner holds,
//     an asyncio await cycle (task "a" awaits "b", which awaits "a"), a thread blocked on a
//     plain Lock (no owner recorded: held_by null), sleeping and selecting threads, tasks in
//     asyncio.sleep and Event.wait. `py-waits --json` gives each thread's and task's wait
//     kind, the object's address (id()), who holds it (the RLock's owner, the joined thread,
//     the awaited task), and exactly the truth's cycles, each from its least party; the text
//     prints each cycle first as one "deadlock:" line, and nothing else says "deadlock".
//   * Calm (waits_calm.py): a busy thread, sleeping ones, a loop whose tasks sleep or wait on
//     an Event: no cycle, "no deadlock found", and each wait as the truth says.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

const std::vector<std::string> kInterpreters = {"debian_3.11", "3.12.1", "3.13.0"};

// The py-waits entry of each waiter, by (kind, id as the truth writes it).
std::map<std::pair<std::string, std::string>, json> WaitsById(const json& document) {
  std::map<std::pair<std::string, std::string>, json> out;
  for (const json& wait : document.at("waits")) {
    const json& id = wait.at("id");
    out[{wait.at("kind"), id.is_string() ? id.get<std::string>() : id.dump()}] = wait;
  }
  return out;
}

// The ids of a held_by list, as the truth writes them (threads: numbers, tasks: "0x...").
json HolderIds(const json& held_by) {
  if (held_by.is_null()) return held_by;
  json ids = json::array();
  for (const json& party : held_by) ids.push_back(party.at("id"));
  return ids;
}

// Each truth thread's and task's wait against py-waits' entry for it.
void ExpectWaitsMatch(const json& truth, const json& got) {
  auto waits = WaitsById(got);
  auto check = [&](const std::string& kind, const json& id, const json& expected) {
    const std::string key = id.is_string() ? id.get<std::string>() : id.dump();
    auto found = waits.find({kind, key});
    ASSERT_NE(found, waits.end()) << kind << " " << key << " missing: " << got.dump(1);
    const json& wait = found->second;
    EXPECT_EQ(wait.at("name"), expected.at("name")) << wait.dump();
    const json& waits_for = wait.at("waits_for");
    if (expected.at("waits").is_null()) {
      EXPECT_TRUE(waits_for.is_null()) << expected.dump() << "\n" << wait.dump();
      return;
    }
    ASSERT_FALSE(waits_for.is_null()) << expected.dump() << "\n" << wait.dump();
    EXPECT_EQ(waits_for.at("kind"), expected.at("waits")) << wait.dump();
    if (expected.contains("address") && !expected.at("address").is_null()) {
      EXPECT_EQ(waits_for.at("address"), expected.at("address")) << wait.dump();
    }
    if (kind == "task" && expected.at("waits") == "task") {
      EXPECT_EQ(waits_for.at("address"), expected.at("held_by").at(0)) << wait.dump();
    }
    EXPECT_EQ(HolderIds(waits_for.at("held_by")), expected.at("held_by")) << wait.dump();
  };
  for (const json& thread : truth.at("threads")) check("thread", thread.at("ident"), thread);
  for (const json& task : truth.at("tasks")) check("task", task.at("id"), task);
}

// The "deadlock:" line the text must print for a truth cycle.
std::string CycleLine(const json& truth, const json& cycle) {
  auto party_text = [](const json& p) {
    return p.at("kind").get<std::string>() + " \"" + p.at("name").get<std::string>() + "\"";
  };
  std::string line = "deadlock: ";
  for (size_t i = 0; i < cycle.size(); ++i) {
    const json& party = cycle[i];
    const std::string next = party_text(cycle[(i + 1) % cycle.size()]);
    std::string phrase = "awaits " + next;
    if (party.at("kind") == "thread") {
      for (const json& t : truth.at("threads")) {
        if (t.at("ident") != party.at("id")) continue;
        phrase = t.at("waits") == "join" ? "joins " + next
                                         : "waits for RLock " + t.at("address").get<std::string>() +
                                               " held by " + next;
      }
    }
    line += (i == 0 ? party_text(party) + " " : ", which ") + phrase;
  }
  return line;
}

class Waits : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/waits.py"); }
};

TEST_P(Waits, ThreadsTasksAndCyclesMatchTruth) {
  const json& truth = scenario_->truth();
  ASSERT_EQ(truth.at("cycles").size(), 3u) << truth.dump(1);
  const RunResult run = RunDebugger(GetParam().debugger, *install_, target_,
                                    {"py-waits --json", "py-waits"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got) << error << "\n" << run.Describe();
  ExpectWaitsMatch(truth, *got);
  auto sorted = [](json cycles) {
    std::sort(cycles.begin(), cycles.end(), [](const json& a, const json& b) { return a.dump() < b.dump(); });
    return cycles;
  };
  EXPECT_EQ(sorted(got->at("cycles")), sorted(truth.at("cycles"))) << got->dump(1);
  // The text: each cycle once, as one line, before any other line of py-waits.
  const auto lines = LinesContaining(run.out, "deadlock");
  ASSERT_EQ(lines.size(), truth.at("cycles").size()) << run.out;
  for (const json& cycle : truth.at("cycles")) {
    const std::string expected = CycleLine(truth, cycle);
    EXPECT_EQ(std::count(lines.begin(), lines.end(), expected), 1) << expected << "\n" << run.out;
  }
  const size_t first_deadlock = run.out.find("\ndeadlock: ");
  const size_t first_wait = run.out.find("\nthread \"");
  EXPECT_LT(first_deadlock, first_wait) << run.out;
}

class CalmWaits : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/waits_calm.py"); }
};

TEST_P(CalmWaits, NoCycleAndEachWaitAsTruth) {
  const json& truth = scenario_->truth();
  ASSERT_TRUE(truth.at("cycles").empty());
  const RunResult run = RunDebugger(GetParam().debugger, *install_, target_,
                                    {"py-waits --json", "py-waits"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got) << error << "\n" << run.Describe();
  ExpectWaitsMatch(truth, *got);
  EXPECT_TRUE(got->at("cycles").empty()) << got->dump(1);
  EXPECT_TRUE(LinesContaining(run.out, "deadlock:").empty()) << run.out;
  EXPECT_EQ(LinesContaining(run.out, "no deadlock found").size(), 1u) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Interpreters, Waits, ::testing::ValuesIn(MatrixCells(kInterpreters)),
                         MatrixCellName);
INSTANTIATE_TEST_SUITE_P(Interpreters, CalmWaits, ::testing::ValuesIn(MatrixCells(kInterpreters)),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e

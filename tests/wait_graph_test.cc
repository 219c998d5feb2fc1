// The waits-for graph's cycle finder (core/waits/wait_graph.h): every cycle once, from its
// least node, the shortest way round; chains, self-loops and edges out of range are no cycles
// or are ignored; a long chain is walked without recursion.
#include "core/waits/wait_graph.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pyunwind {
namespace {

using Cycles = std::vector<std::vector<size_t>>;

TEST(FindCycles, NoEdgesNoCycles) {
  EXPECT_EQ(FindCycles({{}, {}, {}}), Cycles{});
  EXPECT_EQ(FindCycles({}), Cycles{});
}

TEST(FindCycles, ChainIsNoCycle) {
  EXPECT_EQ(FindCycles({{1}, {2}, {}}), Cycles{});
}

TEST(FindCycles, TwoNodeCycleFromItsLeastNode) {
  EXPECT_EQ(FindCycles({{}, {2}, {1}}), (Cycles{{1, 2}}));
}

TEST(FindCycles, CycleWithTailsIsReportedOnce) {
  // 0 -> 3 -> 4 -> 2 -> 3 ; 1 -> 2: one cycle {2, 3, 4}, from 2.
  EXPECT_EQ(FindCycles({{3}, {2}, {3}, {4}, {2}}), (Cycles{{2, 3, 4}}));
}

TEST(FindCycles, SelfLoopIsACycle) {
  EXPECT_EQ(FindCycles({{0}, {}}), (Cycles{{0}}));
}

TEST(FindCycles, SeparateCyclesInOrderOfTheirFirstNodes) {
  EXPECT_EQ(FindCycles({{}, {}, {5}, {4}, {3}, {2}}), (Cycles{{2, 5}, {3, 4}}));
}

TEST(FindCycles, ShortestWayRoundInALargerComponent) {
  // 0 -> 1 -> 2 -> 0 and 0 -> 2: the shortest way from 0 back is 0, 2.
  EXPECT_EQ(FindCycles({{1, 2}, {2}, {0}}), (Cycles{{0, 2}}));
}

TEST(FindCycles, EdgesOutOfRangeAreIgnored) {
  EXPECT_EQ(FindCycles({{7, 1}, {0, 99}}), (Cycles{{0, 1}}));
}

TEST(FindCycles, LongChainIntoACycleNeedsNoRecursion) {
  const size_t n = 500000;
  std::vector<std::vector<size_t>> next(n);
  for (size_t i = 0; i + 1 < n; ++i) next[i] = {i + 1};
  next[n - 1] = {n - 2};
  EXPECT_EQ(FindCycles(next), (Cycles{{n - 2, n - 1}}));
}

WaitParty Thread(uint64_t id, std::string name) {
  return WaitParty{WaiterKind::kThread, id, std::move(name)};
}
WaitParty Task(uint64_t id, std::string name) {
  return WaitParty{WaiterKind::kTask, id, std::move(name)};
}

Wait Waiting(WaitParty waiter, std::optional<std::vector<WaitParty>> held_by) {
  return Wait{std::move(waiter), WaitTarget{"rlock", 0x10, "_thread.RLock", std::move(held_by), ""}};
}

TEST(FindWaitCycles, ThreadsAndTasksFromTheLeastParty) {
  std::vector<std::string> warnings;
  const std::vector<Wait> waits = {
      Waiting(Thread(20, "worker-2"), std::vector<WaitParty>{Thread(10, "worker-1")}),
      Waiting(Task(0x500, "b"), std::vector<WaitParty>{Task(0x400, "a")}),
      Waiting(Thread(10, "worker-1"), std::vector<WaitParty>{Thread(20, "worker-2")}),
      Waiting(Task(0x400, "a"), std::vector<WaitParty>{Task(0x500, "b")}),
      Waiting(Thread(30, "lonely"), std::nullopt),
      Waiting(Thread(40, "waits-for-gone"), std::vector<WaitParty>{Thread(99, "")}),
      Wait{Thread(50, "running"), std::nullopt},
  };
  const auto cycles = FindWaitCycles(waits, warnings);
  ASSERT_EQ(cycles.size(), 2u);
  EXPECT_EQ(cycles[0], (std::vector<WaitParty>{Thread(10, ""), Thread(20, "")}));
  EXPECT_EQ(cycles[0][0].name, "worker-1");
  EXPECT_EQ(cycles[1], (std::vector<WaitParty>{Task(0x400, ""), Task(0x500, "")}));
  EXPECT_TRUE(warnings.empty());
}

TEST(FindWaitCycles, ThreadHoldingWhatItWaitsForIsACycle) {
  std::vector<std::string> warnings;
  const auto cycles =
      FindWaitCycles({Waiting(Thread(1, "self"), std::vector<WaitParty>{Thread(1, "self")})}, warnings);
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0], (std::vector<WaitParty>{Thread(1, "self")}));
}

}  // namespace
}  // namespace pyunwind

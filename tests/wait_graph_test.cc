// The waits-for graph's cycle finder (core/waits/wait_graph.h): every cycle once, from its
// least node, the shortest way round; chains, self-loops and edges out of range are no cycles
// or are ignored; a long chain is walked without recursion; a waiter any of whose holders can
// release it (a queued Future) is in a cycle only if every holder waits back on it; past the
// graph's bounds no cycle is claimed, and a warning says why.
#include "core/waits/wait_graph.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base/limits.h"

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

// A queued Future's waiter: any one of its executor's busy workers can release it.
Wait QueuedFuture(WaitParty waiter, std::vector<WaitParty> busy_workers) {
  WaitTarget target{"concurrent_future", 0x20, "Future", std::move(busy_workers), "Future.result"};
  target.state = "PENDING";
  target.released_by_any = true;
  return Wait{std::move(waiter), std::move(target)};
}

TEST(FindWaitCycles, OneWorkerQueuedBehindItselfIsACycle) {
  std::vector<std::string> warnings;
  const auto cycles = FindWaitCycles({QueuedFuture(Thread(1, "worker"), {Thread(1, "worker")})}, warnings);
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0], (std::vector<WaitParty>{Thread(1, "worker")}));
  EXPECT_TRUE(warnings.empty());
}

TEST(FindWaitCycles, QueuedFutureIsStuckOnlyIfEveryBusyWorkerWaitsOnItsWaiter) {
  std::vector<std::string> warnings;
  // Worker 1 waits for a Future queued behind itself and worker 2, which waits on nothing
  // known (it may finish): no cycle.
  EXPECT_TRUE(FindWaitCycles({QueuedFuture(Thread(1, "w1"), {Thread(1, "w1"), Thread(2, "w2")}),
                              Wait{Thread(2, "w2"), std::nullopt}},
                             warnings)
                  .empty());
  // Worker 2 waits for what worker 1 holds (an RLock here): both stuck, one cycle, the
  // shortest way round from worker 1 (as for every cycle: its own edge back to itself).
  const auto both = FindWaitCycles(
      {QueuedFuture(Thread(1, "w1"), {Thread(1, "w1"), Thread(2, "w2")}),
       Waiting(Thread(2, "w2"), std::vector<WaitParty>{Thread(1, "w1")})},
      warnings);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_EQ(both[0], (std::vector<WaitParty>{Thread(1, "")}));
  // A busy worker that is not among the waiters (not read) may finish: no cycle.
  EXPECT_TRUE(FindWaitCycles({QueuedFuture(Thread(1, "w1"), {Thread(1, "w1"), Thread(9, "")})},
                             warnings)
                  .empty());
  EXPECT_TRUE(warnings.empty());
}

TEST(FindWaitCycles, DroppingOneAnyOfWaiterFreesTheOnesThatDependedOnIt) {
  // "a" waits for a Future that "b" or "c" can release, "b" for one only "a" can; "c" runs.
  // "a" and "b" wait on each other, but "c" may finish and release "a", and "a" then "b".
  std::vector<std::string> warnings;
  const auto cycles = FindWaitCycles(
      {QueuedFuture(Thread(1, "a"), {Thread(2, "b"), Thread(3, "c")}),
       QueuedFuture(Thread(2, "b"), {Thread(1, "a")}), Wait{Thread(3, "c"), std::nullopt}},
      warnings);
  EXPECT_TRUE(cycles.empty());
  EXPECT_TRUE(warnings.empty());
}

TEST(WaitGraphBounds, AreTheLimits) {
  const WaitGraphBounds bounds;
  EXPECT_EQ(bounds.max_parties, kMaxWaitParties);
  EXPECT_EQ(bounds.max_edges, kMaxWaitEdges);
  EXPECT_EQ(bounds.max_any_of_steps, kMaxAnyOfSteps);
}

// Two threads in an RLock-order deadlock, then `extra` more threads each waiting for the first.
std::vector<Wait> DeadlockAndWaitersOnIt(uint64_t extra) {
  std::vector<Wait> waits = {Waiting(Thread(1, "a"), std::vector<WaitParty>{Thread(2, "b")}),
                             Waiting(Thread(2, "b"), std::vector<WaitParty>{Thread(1, "a")})};
  for (uint64_t id = 3; id < 3 + extra; ++id) {
    waits.push_back(Waiting(Thread(id, ""), std::vector<WaitParty>{Thread(1, "a")}));
  }
  return waits;
}

TEST(WaitGraphBounds, MoreWaitersThanTheBoundLookForNoCycles) {
  WaitGraphBounds bounds;
  bounds.max_parties = 10;
  std::vector<std::string> warnings;
  EXPECT_EQ(FindWaitCycles(DeadlockAndWaitersOnIt(8), warnings, bounds).size(), 1u);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(FindWaitCycles(DeadlockAndWaitersOnIt(9), warnings, bounds).empty());
  EXPECT_EQ(warnings, std::vector<std::string>{"11 waiters: more than 10, no cycles looked for"});
}

TEST(WaitGraphBounds, MoreEdgesThanTheBoundLookForNoCycles) {
  WaitGraphBounds bounds;
  bounds.max_edges = 10;
  std::vector<std::string> warnings;
  EXPECT_EQ(FindWaitCycles(DeadlockAndWaitersOnIt(8), warnings, bounds).size(), 1u);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(FindWaitCycles(DeadlockAndWaitersOnIt(9), warnings, bounds).empty());
  EXPECT_EQ(warnings, std::vector<std::string>{"more than 10 waits-for edges, no cycles looked for"});
}

TEST(WaitGraphBounds, TooManyStepsTakeNoAnyOfWaitForACycle) {
  // One worker queued behind itself (a cycle) beside two threads that wait on nothing.
  const std::vector<Wait> waits = {QueuedFuture(Thread(1, "worker"), {Thread(1, "worker")}),
                                   Wait{Thread(2, ""), std::nullopt},
                                   Wait{Thread(3, ""), std::nullopt}};
  WaitGraphBounds bounds;
  std::vector<std::string> warnings;
  EXPECT_EQ(FindWaitCycles(waits, warnings, bounds).size(), 1u);
  EXPECT_TRUE(warnings.empty());
  bounds.max_any_of_steps = 2;  // a pass over the three nodes is more
  EXPECT_TRUE(FindWaitCycles(waits, warnings, bounds).empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "more than 2 steps deciding which waits any holder can release: those "
                         "waits are not taken for cycles");
}

}  // namespace
}  // namespace pyunwind

// FindAwaitCycles (core/asyncio/await_cycles.h) over task graphs made in memory: each cycle
// once, as pstree's depth-first search finds it, and the bounds.
#include "core/asyncio/await_cycles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

namespace pyunwind {
namespace {

class Graph {
 public:
  // A task named `name`, at an address of its own.
  AsyncTask& Add(const std::string& name) {
    AsyncTask& task = tasks_.emplace_back();
    task.address = 0x1000 + 0x100 * tasks_.size();
    task.name = name;
    return task;
  }
  // `awaiter` awaits `awaited`.
  void Awaits(AsyncTask& awaiter, AsyncTask& awaited, const char* kind = "await") {
    awaited.awaited_by.push_back({awaiter.address, kind});
  }
  std::vector<const AsyncTask*> Tasks() const {
    std::vector<const AsyncTask*> out;
    for (const AsyncTask& task : tasks_) out.push_back(&task);
    return out;
  }

 private:
  std::deque<AsyncTask> tasks_;  // addresses stay put
};

// A cycle as pstree prints it: "a b a".
std::string Names(const AwaitCycle& cycle) {
  std::string out;
  for (const AsyncTask* task : cycle.tasks) out += task->name + " ";
  return out + cycle.tasks.front()->name;
}

std::vector<std::string> AllNames(const AwaitCycles& cycles) {
  std::vector<std::string> out;
  for (const AwaitCycle& cycle : cycles.listed) out.push_back(Names(cycle));
  return out;
}

TEST(AwaitCycles, EachCycleOnceFromWhereTheSearchEntersIt) {
  Graph g;
  AsyncTask& a = g.Add("a");
  AsyncTask& b = g.Add("b");
  AsyncTask& c = g.Add("c");
  AsyncTask& d = g.Add("d");
  AsyncTask& e = g.Add("e");
  AsyncTask& f = g.Add("f");
  g.Awaits(a, b);
  g.Awaits(b, a);
  g.Awaits(b, a, "awaited_by");  // 3.14 records the edge twice: still one cycle
  g.Awaits(c, d);
  g.Awaits(d, e);
  g.Awaits(e, c, "gather");
  g.Awaits(f, a);  // hangs on a cycle, is not in one
  const AwaitCycles cycles = FindAwaitCycles(g.Tasks());
  EXPECT_EQ(AllNames(cycles), (std::vector<std::string>{"a b a", "c d e c"}));
  EXPECT_EQ(cycles.listed[1].length, 3u);
  EXPECT_EQ(cycles.not_listed, 0u);
  EXPECT_TRUE(AwaitCycleWarnings(cycles).empty());
}

TEST(AwaitCycles, NoneInATreeOrADiamond) {
  Graph g;
  AsyncTask& top = g.Add("top");
  AsyncTask& left = g.Add("left");
  AsyncTask& right = g.Add("right");
  AsyncTask& bottom = g.Add("bottom");
  g.Awaits(top, left);
  g.Awaits(top, right);
  g.Awaits(left, bottom);
  g.Awaits(right, bottom);
  EXPECT_TRUE(FindAwaitCycles(g.Tasks()).listed.empty());
}

TEST(AwaitCycles, SelfAwaitAndTasksNotGiven) {
  Graph g;
  AsyncTask& self = g.Add("self");
  g.Awaits(self, self);
  AsyncTask& shown = g.Add("shown");
  AsyncTask hidden;  // not among the tasks: its edges are not followed
  hidden.address = 0x99000;
  hidden.name = "hidden";
  g.Awaits(shown, hidden);
  g.Awaits(hidden, shown);
  EXPECT_EQ(AllNames(FindAwaitCycles(g.Tasks())), std::vector<std::string>{"self self"});
}

TEST(AwaitCycles, ALongCycleIsListedInPartWithoutRecursion) {
  Graph g;
  constexpr size_t kLength = 200000;
  std::vector<AsyncTask*> chain;
  for (size_t i = 0; i < kLength; ++i) chain.push_back(&g.Add("t" + std::to_string(i)));
  for (size_t i = 0; i < kLength; ++i) g.Awaits(*chain[i], *chain[(i + 1) % kLength]);
  const AwaitCycles cycles = FindAwaitCycles(g.Tasks());
  ASSERT_EQ(cycles.listed.size(), 1u);
  EXPECT_EQ(cycles.listed[0].length, kLength);
  ASSERT_EQ(cycles.listed[0].tasks.size(), kMaxAwaitCycleTasks);
  EXPECT_EQ(cycles.listed[0].tasks[1]->name, "t1");
  EXPECT_EQ(AwaitCycleWarnings(cycles),
            std::vector<std::string>{"an await cycle of 200000 tasks: the first 64 are listed"});
}

TEST(AwaitCycles, CyclesPastTheBoundAreCounted) {
  Graph g;
  for (int i = 0; i < 40; ++i) {
    AsyncTask& x = g.Add("x" + std::to_string(i));
    AsyncTask& y = g.Add("y" + std::to_string(i));
    g.Awaits(x, y);
    g.Awaits(y, x);
  }
  const AwaitCycles cycles = FindAwaitCycles(g.Tasks());
  EXPECT_EQ(cycles.listed.size(), kMaxAwaitCycles);
  EXPECT_EQ(cycles.not_listed, 8u);
  EXPECT_EQ(AwaitCycleWarnings(cycles),
            std::vector<std::string>{"8 more await cycles not listed (the first 32 are)"});
}

}  // namespace
}  // namespace pyunwind

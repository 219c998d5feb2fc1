// py-bt --all --group's grouping (core/render/thread_groups.h) and how the text and the JSON
// show the groups (core/render/format.h), over threads made in memory.
#include "core/render/thread_groups.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/render/format.h"

namespace pyunwind {
namespace {

const CodeNames kWorker = {"/app/pool.py", "worker", "Pool.worker"};
const CodeNames kSleep = {"/app/pool.py", "sleep_forever", "sleep_forever"};
const CodeNames kMain = {"/app/main.py", "main", "main"};

Frame PythonFrame(const CodeNames& names, int line) {
  Frame frame;
  frame.code_names = &names;
  frame.line = line;
  frame.end_line = line;
  frame.column = 4;
  frame.end_column = 20;
  return frame;
}

// A parked worker: sleep_forever at line 9 called from Pool.worker at `line`.
Thread Worker(uint64_t id, int line = 30) {
  Thread thread;
  thread.native_id = id;
  thread.name = "worker-" + std::to_string(id);
  thread.frames = {PythonFrame(kSleep, 9), PythonFrame(kWorker, line)};
  thread.frames[0].calling = std::make_shared<const std::string>("<built-in function sleep>");
  return thread;
}

std::vector<std::vector<size_t>> Groups(const std::vector<Thread>& threads) {
  std::vector<std::vector<size_t>> groups;
  for (const ThreadGroup& group : GroupThreadsByStack(threads)) groups.push_back(group.threads);
  return groups;
}

TEST(ThreadGroups, LargestFirstThenByFirstThread) {
  std::vector<Thread> threads;
  Thread main;
  main.native_id = 1;
  main.frames = {PythonFrame(kMain, 5)};
  threads.push_back(main);
  for (uint64_t id = 100; id < 300; ++id) threads.push_back(Worker(id));  // the idle pool
  threads.insert(threads.begin() + 50, Worker(7, 31));                    // a lone worker
  threads.insert(threads.begin() + 20, Worker(8, 32));                    // two at line 32
  threads.push_back(Worker(9, 32));
  const auto groups = Groups(threads);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].size(), 200u);
  EXPECT_EQ(groups[0].front(), 1u);
  EXPECT_EQ(groups[1], (std::vector<size_t>{20, threads.size() - 1}));
  EXPECT_EQ(groups[2], std::vector<size_t>{0});   // main: first of the groups of one
  EXPECT_EQ(groups[3], std::vector<size_t>{51});  // the lone worker, after it
}

TEST(ThreadGroups, WhatTheHeaderSaysDoesNotSplitAGroup) {
  std::vector<Thread> threads = {Worker(1), Worker(2), Worker(3)};
  threads[0].holds_gil = true;
  threads[0].is_main = true;
  threads[1].activity = Activity::kWaitingForGil;
  threads[2].name.reset();
  threads[2].exception = "ValueError";
  threads[2].running_task = Thread::RunningTask{0x1000, "t"};
  EXPECT_EQ(Groups(threads), (std::vector<std::vector<size_t>>{{0, 1, 2}}));
}

TEST(ThreadGroups, NamesAreComparedByTextNotByObject) {
  const CodeNames copy = kWorker;  // another cached copy of the same code's names
  std::vector<Thread> threads = {Worker(1), Worker(2)};
  threads[1].frames[1].code_names = &copy;
  EXPECT_TRUE(SameStack(threads[0], threads[1]));
}

TEST(ThreadGroups, AnyDifferenceOfTheStackSplitsIt) {
  const Thread base = Worker(1);
  const CodeNames other_file = {"/app/other.py", "worker", "Pool.worker"};
  const CodeNames other_qualname = {"/app/pool.py", "worker", "Other.worker"};
  std::vector<Thread> changed(9, base);
  changed[0].frames[1].line = 31;
  changed[1].frames[1].column = 5;
  changed[2].frames[1].end_column = 21;
  changed[3].frames[1].end_line = 31;
  changed[4].frames[1].code_names = &other_file;
  changed[5].frames[1].code_names = &other_qualname;
  changed[6].frames[0].calling = std::make_shared<const std::string>("<built-in function select>");
  changed[7].frames.pop_back();  // a prefix of the stack
  changed[8].truncated = true;
  changed[8].error = "frame chain loops";
  for (size_t i = 0; i < changed.size(); ++i) {
    EXPECT_FALSE(SameStack(base, changed[i])) << i;
    EXPECT_FALSE(SameStack(changed[i], base)) << i;
  }
  Thread no_calling = base;
  no_calling.frames[0].calling.reset();
  EXPECT_FALSE(SameStack(base, no_calling));
  Thread gc = base;
  Frame collecting;
  collecting.kind = FrameKind::kGc;
  gc.frames.insert(gc.frames.begin(), collecting);
  EXPECT_FALSE(SameStack(base, gc));
  EXPECT_TRUE(SameStack(gc, gc));
}

Snapshot PoolSnapshot(size_t workers) {
  Snapshot snapshot;
  Interpreter interp;
  Thread main;
  main.native_id = 1;
  main.name = "MainThread";
  main.is_main = true;
  main.exception_state = ExceptionState::kNone;
  main.frames = {PythonFrame(kMain, 5)};
  interp.threads.push_back(main);
  for (uint64_t id = 100; id < 100 + workers; ++id) interp.threads.push_back(Worker(id));
  snapshot.interpreters.push_back(std::move(interp));
  return snapshot;
}

TEST(ThreadGroups, TextCountsAGroupAndNamesTheFirstTen) {
  const Snapshot snapshot = PoolSnapshot(200);
  FormatOptions options;
  options.group_threads = true;
  const std::string text = FormatText(snapshot, options);
  const std::string title =
      "200 threads with this stack: 100 \"worker-100\", 101 \"worker-101\", 102 \"worker-102\", "
      "103 \"worker-103\", 104 \"worker-104\", 105 \"worker-105\", 106 \"worker-106\", "
      "107 \"worker-107\", 108 \"worker-108\", 109 \"worker-109\" and 190 more:\n"
      "Traceback (most recent call first):\n"
      "  File \"/app/pool.py\", line 9, in sleep_forever\n"
      "    <built-in function sleep>\n"
      "  File \"/app/pool.py\", line 30, in Pool.worker\n"
      "\n"
      "Thread 1 \"MainThread\" (main thread):\n"
      "Traceback (most recent call first):\n"
      "  File \"/app/main.py\", line 5, in main\n";
  EXPECT_EQ(text, title);
  // Without --group, every thread as before.
  options.group_threads = false;
  EXPECT_EQ(FormatText(snapshot, options).find("threads with this stack"), std::string::npos);
}

TEST(ThreadGroups, TextOfAGroupOfTenNamesAll) {
  FormatOptions options;
  options.group_threads = true;
  const std::string text = FormatText(PoolSnapshot(10), options);
  EXPECT_NE(text.find("109 \"worker-109\":\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("more"), std::string::npos) << text;
}

TEST(ThreadGroups, JsonAddsTheGroupsOfEachInterpreter) {
  FormatOptions options;
  options.group_threads = true;
  const auto doc = nlohmann::json::parse(FormatJson(PoolSnapshot(3), options));
  const auto& interp = doc.at("interpreters").at(0);
  ASSERT_EQ(interp.at("threads").size(), 4u);  // every thread as without --group
  const auto& groups = interp.at("groups");
  ASSERT_EQ(groups.size(), 2u) << groups.dump();
  EXPECT_EQ(groups[0].at("count"), 3);
  EXPECT_EQ(groups[0].at("thread_indexes"), nlohmann::json({1, 2, 3}));
  EXPECT_EQ(groups[0].at("frames"), interp.at("threads").at(1).at("frames"));
  EXPECT_EQ(groups[1].at("count"), 1);
  EXPECT_EQ(groups[1].at("thread_indexes"), nlohmann::json({0}));
  options.group_threads = false;
  EXPECT_FALSE(nlohmann::json::parse(FormatJson(PoolSnapshot(3), options))
                   .at("interpreters").at(0).contains("groups"));
}

}  // namespace
}  // namespace pyunwind

// Which thread state is the main thread (core/walk/main_thread.h), over thread
// lists built in memory with the real 3.13.15 and 3.14.7 layouts (their
// _Py_DebugOffsets blocks in tests/data) and the 3.11 table: the fact the
// target records is read, never the order of the list, and a 3.13 table fact
// that does not agree with the target gives no main thread.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/layout/debug_offsets.h"
#include "core/layout/layout.h"
#include "core/walk/main_thread.h"
#include "tests/fake_target.h"
#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::FakeHeap;
using testing::FakeTarget;

Layout LayoutOf(const std::string& block_name) {
  auto block = testing::ReadFileBytes(
      testing::RunfilePath("tests/data/debug_offsets/" + block_name + ".bin"));
  EXPECT_TRUE(block.has_value()) << block_name;
  if (!block) return Layout{};
  auto layout = LayoutFromDebugOffsets(block->data(), block->size());
  EXPECT_TRUE(layout.ok()) << layout.error().message;
  return layout.ok() ? *layout : Layout{};
}

// A runtime, one interpreter and three thread states, oldest first in `states_oldest_first`.
struct Process {
  explicit Process(Layout l) : layout(std::move(l)), heap(target, 0x7f1000000000, 1 << 20) {
    runtime = heap.Alloc(4096);
    interp = heap.Alloc(layout.interp.size);
    for (uint64_t id : {0x7f0000000001ull, 0x7f0000000002ull, 0x7f0000000003ull}) {
      const uint64_t tstate = heap.Alloc(layout.tstate.size);
      target.PutU64(tstate + layout.tstate.thread_id, id);
      oldest_first.push_back(tstate);
    }
  }
  uint64_t ThreadId(size_t i) const { return 0x7f0000000001ull + i; }
  void SetThreadsMain(uint64_t tstate) { target.PutU64(interp + layout.interp.threads_main, tstate); }
  void SetRuntimeMainThread(uint64_t id) { target.PutU64(runtime + layout.runtime.main_thread, id); }
  MainThread Find(bool is_main_interpreter = true) {
    RemoteMemory memory(target);
    // CPython's list is newest first.
    const std::vector<uint64_t> states(oldest_first.rbegin(), oldest_first.rend());
    return FindMainThread(memory, layout, runtime, interp, is_main_interpreter, states);
  }

  Layout layout;
  FakeTarget target;
  FakeHeap heap;
  uint64_t runtime = 0, interp = 0;
  std::vector<uint64_t> oldest_first;
};

TEST(MainThread, Python313ReadsThreadsMainWhenTheRuntimeAgrees) {
  Process p(LayoutOf("3.13.15"));
  ASSERT_TRUE(p.layout.interp.threads_main_from_table);
  // The main thread is the second-oldest state: not what list order would say.
  p.SetThreadsMain(p.oldest_first[1]);
  p.SetRuntimeMainThread(p.ThreadId(1));
  const MainThread main = p.Find();
  EXPECT_EQ(main.tstate, p.oldest_first[1]);
  EXPECT_EQ(main.source, "from interp->threads.main (table), agreeing with _PyRuntime.main_thread");
}

TEST(MainThread, Python313TableThatDoesNotValidateGivesNone) {
  Process p(LayoutOf("3.13.15t"));
  // threads.main names a state, the runtime another thread: one of the two offsets is wrong.
  p.SetThreadsMain(p.oldest_first[1]);
  p.SetRuntimeMainThread(p.ThreadId(0));
  MainThread main = p.Find();
  EXPECT_EQ(main.tstate, 0u);
  EXPECT_EQ(main.source.rfind("unknown: interp->threads.main (table) has thread id", 0), 0u)
      << main.source;
  // threads.main is no thread state of the interpreter.
  p.SetThreadsMain(p.heap.Alloc(64));
  main = p.Find();
  EXPECT_EQ(main.tstate, 0u);
  EXPECT_NE(main.source.find("none of the interpreter's thread states"), std::string::npos)
      << main.source;
  // A sub-interpreter's threads.main cannot be checked against the runtime's main thread.
  p.SetThreadsMain(p.oldest_first[2]);
  main = p.Find(/*is_main_interpreter=*/false);
  EXPECT_EQ(main.tstate, 0u);
  EXPECT_EQ(main.source.rfind("unknown: ", 0), 0u) << main.source;
}

TEST(MainThread, Python313WithoutThreadsMainUsesTheRuntimesThreadId) {
  Process p(LayoutOf("3.13.15"));
  p.SetThreadsMain(0);
  p.SetRuntimeMainThread(p.ThreadId(2));  // the newest state
  MainThread main = p.Find();
  EXPECT_EQ(main.tstate, p.oldest_first[2]);
  EXPECT_EQ(main.source, "from _PyRuntime.main_thread (table)");
  p.SetRuntimeMainThread(0x1234);  // no such thread: no main thread, no guess
  main = p.Find();
  EXPECT_EQ(main.tstate, 0u);
  EXPECT_EQ(main.source.rfind("none: no thread state has", 0), 0u) << main.source;
}

TEST(MainThread, Python314TrustsItsOwnDebugOffsets) {
  Process p(LayoutOf("3.14.7"));
  ASSERT_FALSE(p.layout.interp.threads_main_from_table);
  p.SetThreadsMain(p.oldest_first[1]);
  MainThread main = p.Find();
  EXPECT_EQ(main.tstate, p.oldest_first[1]);
  EXPECT_EQ(main.source, "from interp->threads.main (_Py_DebugOffsets)");
  p.SetThreadsMain(0);  // nothing runs __main__
  main = p.Find();
  EXPECT_EQ(main.tstate, 0u);
  EXPECT_EQ(main.source, "none: interp->threads.main (_Py_DebugOffsets) is NULL");
  p.SetThreadsMain(p.heap.Alloc(64));
  EXPECT_EQ(p.Find().tstate, 0u);
}

TEST(MainThread, Python311ReadsTheRuntimesThreadIdNotTheListOrder) {
  Process p(*LayoutFromTable(0x030b02f0));
  ASSERT_EQ(p.layout.interp.threads_main, kAbsent);
  p.SetRuntimeMainThread(p.ThreadId(1));
  MainThread main = p.Find();
  EXPECT_EQ(main.tstate, p.oldest_first[1]);
  EXPECT_EQ(main.source, "from _PyRuntime.main_thread (table)");
  EXPECT_EQ(p.Find(/*is_main_interpreter=*/false).tstate, 0u);
}

}  // namespace
}  // namespace pyunwind

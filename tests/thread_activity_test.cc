// What a thread is doing, from its stacks (core/walk/thread_activity.h): idle in a known
// wait, running, or unknown; and which thread gets the collector's status "gc" and <GC> frame.
// The e2e test (tests/e2e/thread_states_test.cc) checks the same on real processes; these
// cases pin the rules on stacks built by hand, as the two debuggers name them.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <deque>
#include <string>
#include <vector>

#include "core/walk/thread_activity.h"

namespace pyunwind {
namespace {

std::vector<NativeFrame> Stack(std::vector<std::string> functions) {
  std::vector<NativeFrame> frames;
  for (std::string& f : functions) frames.push_back({0x1000, std::move(f), ""});
  return frames;
}

Frame PythonFrame(const std::string& qualname) {
  static auto* names = new std::deque<CodeNames>();  // what the frames point to, kept
  Frame f;
  f.code_names = &names->emplace_back(CodeNames{"", qualname, qualname});
  return f;
}

Activity Classify(const std::vector<NativeFrame>& native, const std::string& innermost = "f") {
  Thread t;
  t.frames.push_back(PythonFrame(innermost));
  ClassifyActivity(t, native);
  return t.activity;
}

TEST(ThreadActivity, KnownWaitsAreIdle) {
  // GDB's and LLDB's names of the same glibc frames.
  EXPECT_EQ(Classify(Stack({"__GI___clock_nanosleep", "__GI___nanosleep", "pysleep", "time_sleep",
                            "_PyEval_EvalFrameDefault"})), Activity::kIdle);
  EXPECT_EQ(Classify(Stack({"__futex_abstimed_wait_common64", "__futex_abstimed_wait_common",
                            "__new_sem_wait_slow64", "PyThread_acquire_lock_timed",
                            "_PyEval_EvalFrameDefault"})), Activity::kIdle);
  EXPECT_EQ(Classify(Stack({"__select", "select_select", "_PyEval_EvalFrameDefault"})), Activity::kIdle);
  EXPECT_EQ(Classify(Stack({"__libc_recv", "sock_recv_impl", "_PyEval_EvalFrameDefault"})), Activity::kIdle);
  EXPECT_EQ(Classify(Stack({"epoll_wait", "select_epoll_poll_impl"})), Activity::kIdle);
}

TEST(ThreadActivity, EvalLoopAndCWorkAreRunning) {
  EXPECT_EQ(Classify(Stack({"_PyEval_EvalFrameDefault", "PyEval_EvalCode"})), Activity::kRunning);
  EXPECT_EQ(Classify(Stack({"list_sort_impl", "_PyEval_EvalFrameDefault"})), Activity::kRunning);
}

TEST(ThreadActivity, WaitingForTheGil) {
  EXPECT_EQ(Classify(Stack({"__futex_abstimed_wait_common", "pthread_cond_timedwait", "take_gil",
                            "PyEval_RestoreThread", "time_sleep", "_PyEval_EvalFrameDefault"})),
            Activity::kWaitingForGil);
  // The eval loop's own wait, asked to switch (3.11: take_gil under _PyEval_EvalFrameDefault).
  EXPECT_EQ(Classify(Stack({"__futex_abstimed_wait_common64", "__pthread_cond_wait_common",
                            "___pthread_cond_timedwait64", "take_gil", "_PyEval_EvalFrameDefault"})),
            Activity::kWaitingForGil);
  // Debian's stripped 3.14: libc's futex wait and take_gil unnamed, PyEval_RestoreThread
  // exported; a stack with no GIL acquire below its unnamed top stays unknown.
  EXPECT_EQ(Classify(Stack({"", "", "", "pthread_cond_timedwait", "", "PyEval_RestoreThread", "",
                            "_PyEval_EvalFrameDefault"})),
            Activity::kWaitingForGil);
  EXPECT_EQ(Classify(Stack({"", "pthread_cond_timedwait", "drop_gil", "PyEval_RestoreThread"})),
            Activity::kUnknown);
  EXPECT_EQ(Classify(Stack({"", "_PyEval_EvalFrameDefault", "PyEval_RestoreThread"})),
            Activity::kUnknown);
  // 3.15 says it in the thread state, whatever the stack.
  Thread t;
  t.status.push_back("gil_requested");
  ClassifyActivity(t, {});
  EXPECT_EQ(t.activity, Activity::kWaitingForGil);
}

TEST(ThreadActivity, GivingTheGilUpIsRunning) {
  // Giving the GIL up on request: waiting for its mutex, then (3.12/3.13's forced
  // switching) until the asking thread has it. Both are the running thread's hand-over.
  EXPECT_EQ(Classify(Stack({"__lll_lock_wait", "___pthread_mutex_lock", "drop_gil",
                            "_Py_HandlePending", "_PyEval_EvalFrameDefault"})),
            Activity::kRunning);
  EXPECT_EQ(Classify(Stack({"__futex_abstimed_wait_common", "___pthread_cond_wait", "drop_gil",
                            "_PyThreadState_Detach", "_Py_HandlePending",
                            "_PyEval_EvalFrameDefault"})),
            Activity::kRunning);
}

TEST(ThreadActivity, NoSymbolOrNoNativeStack) {
  // No symbol for where the thread is: unknown, whatever is below (but a GIL acquire).
  EXPECT_EQ(Classify(Stack({"", "_PyEval_EvalFrameDefault"})), Activity::kUnknown);
  // No native stack: only the stdlib's own Python waits tell.
  EXPECT_EQ(Classify({}, "Condition.wait"), Activity::kIdle);
  EXPECT_EQ(Classify({}, "Thread._wait_for_tstate_lock"), Activity::kIdle);
  EXPECT_EQ(Classify({}, "EpollSelector.select"), Activity::kIdle);
  EXPECT_EQ(Classify({}, "worker"), Activity::kUnknown);
}

Activity ClassifyCalling(const std::vector<NativeFrame>& native, const std::string& calling,
                         std::optional<bool> holds_gil = std::nullopt) {
  Thread t;
  t.holds_gil = holds_gil;
  Frame f = PythonFrame("f");
  if (!calling.empty()) f.calling = std::make_shared<const std::string>(calling);
  t.frames.push_back(std::move(f));
  ClassifyActivity(t, native);
  return t.activity;
}

TEST(ThreadActivity, WithoutNamedNativeFramesTheCallIntoCTells) {
  // No native stack, or LLDB's names for a stripped binary's functions: the C call the
  // innermost Python frame is in (`calling`) tells a wait.
  const auto stripped = Stack({"___lldb_unnamed_symbol3755", "___lldb_unnamed_symbol3689",
                               "clock_nanosleep", "___lldb_unnamed_symbol11474"});
  EXPECT_EQ(Classify(Stack({"___lldb_unnamed_symbol3755", "clock_nanosleep"})), Activity::kUnknown);
  EXPECT_EQ(ClassifyCalling(stripped, "<built-in function sleep>"), Activity::kIdle);
  EXPECT_EQ(ClassifyCalling({}, "<method 'acquire' of '_thread.lock' objects>"), Activity::kIdle);
  EXPECT_EQ(ClassifyCalling({}, "<built-in method acquire of _thread.RLock object at 0x7f10c2a0>"),
            Activity::kIdle);
  EXPECT_EQ(ClassifyCalling({}, "<method 'get' of '_queue.SimpleQueue' objects>"), Activity::kIdle);
  EXPECT_EQ(ClassifyCalling({}, "<built-in function select>"), Activity::kIdle);
  // Not a wait: the GIL's holder runs; another thread cannot be told.
  EXPECT_EQ(ClassifyCalling({}, "<built-in function sorted>"), Activity::kUnknown);
  EXPECT_EQ(ClassifyCalling({}, "<built-in function sorted>", true), Activity::kRunning);
  EXPECT_EQ(ClassifyCalling(stripped, "", true), Activity::kRunning);
  EXPECT_EQ(ClassifyCalling({}, "<method 'acquire' of 'Fake' objects>"), Activity::kUnknown);
  EXPECT_EQ(ClassifyCalling({}, "<built-in function sleep"), Activity::kUnknown);
  // A method bound to an instance names its owner's type before " object at 0x<address>>".
  EXPECT_EQ(ClassifyCalling({}, "<built-in method acquire of _thread.lock object at 0x>"),
            Activity::kUnknown);
  EXPECT_EQ(ClassifyCalling({}, "<built-in method acquire of _thread.lock object at 0x1 >"),
            Activity::kUnknown);
  EXPECT_EQ(ClassifyCalling({}, "<method-wrapper 'acquire' of _thread.lock object at 0x10>"),
            Activity::kUnknown);
}

bool HasGc(const Thread& t) {
  return std::find(t.status.begin(), t.status.end(), "gc") != t.status.end();
}

TEST(ThreadActivity, CollectorIsTheThreadInsideTheCollection) {
  Interpreter interp;
  interp.gc_collecting = true;
  interp.threads.resize(3);
  interp.threads[1].status = {"has_gil", "gc"};  // the walk's guess: the GIL holder
  for (Thread& t : interp.threads) t.frames.push_back(PythonFrame("f"));
  const std::vector<std::vector<NativeFrame>> native = {
      Stack({"__GI___clock_nanosleep", "time_sleep", "_PyEval_EvalFrameDefault", "slot_tp_finalize",
             "finalize_garbage", "gc_collect_main", "gc_collect_with_callback", "gc_collect_impl",
             "_PyEval_EvalFrameDefault"}),
      Stack({"_PyEval_EvalFrameDefault"}),  // the GIL holder, not collecting
      {}};                                 // no stack: nothing to say
  MarkCollectingThreads(interp, native);
  EXPECT_TRUE(HasGc(interp.threads[0]));
  EXPECT_FALSE(HasGc(interp.threads[1]));
  EXPECT_FALSE(HasGc(interp.threads[2]));
  ASSERT_EQ(interp.threads[0].frames.size(), 2u);
  EXPECT_EQ(interp.threads[0].frames[0].kind, FrameKind::kGc);
  EXPECT_EQ(interp.threads[1].frames.size(), 1u);
}

TEST(ThreadActivity, WithoutSymbolsTheGuessStays) {
  Interpreter interp;
  interp.gc_collecting = true;
  interp.threads.resize(1);
  interp.threads[0].status = {"has_gil", "gc"};
  MarkCollectingThreads(interp, {Stack({"", ""})});
  EXPECT_TRUE(HasGc(interp.threads[0]));
  ASSERT_EQ(interp.threads[0].frames.size(), 1u);
  EXPECT_EQ(interp.threads[0].frames[0].kind, FrameKind::kGc);
}

TEST(ThreadActivity, WithoutSymbolsTheThreadCallingGcCollectIsTheCollector) {
  Interpreter interp;
  interp.gc_collecting = true;
  interp.threads.resize(2);
  Frame finalizer = PythonFrame("Finalizer.__del__");
  finalizer.calling =
      std::make_shared<const std::string>("<built-in function sleep>");
  Frame collector = PythonFrame("collector");
  collector.calling =
      std::make_shared<const std::string>("<built-in function collect>");
  interp.threads[0].frames = {finalizer, collector};
  interp.threads[1].status = {"has_gil", "gc"};  // the walk's guess
  interp.threads[1].frames.push_back(PythonFrame("busy"));
  const auto stripped = Stack({"___lldb_unnamed_symbol3755", "clock_nanosleep"});
  MarkCollectingThreads(interp, {stripped, stripped});
  EXPECT_TRUE(HasGc(interp.threads[0]));
  EXPECT_FALSE(HasGc(interp.threads[1]));
  ASSERT_EQ(interp.threads[0].frames.size(), 3u);
  EXPECT_EQ(interp.threads[0].frames[0].kind, FrameKind::kGc);
  EXPECT_EQ(interp.threads[1].frames.size(), 1u);
}

TEST(ThreadActivity, NoCollectionNoMarker) {
  Interpreter interp;
  interp.threads.resize(1);
  MarkCollectingThreads(interp, {Stack({"gc_collect_main"})});
  EXPECT_FALSE(HasGc(interp.threads[0]));
  EXPECT_TRUE(interp.threads[0].frames.empty());
}

}  // namespace
}  // namespace pyunwind

// WorkerRelay: the job runs on a thread of its own; every callback it makes runs on the
// caller's thread, and every piece of output is printed there, in order, before Run returns.
#include "gdb_bridge/worker_relay.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace pyunwind::gdb {
namespace {

// A host that notes on which thread each callback ran and what it printed.
struct Host {
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> off_caller{0};
  std::string printed;
  std::vector<size_t> piece_sizes;
  std::atomic<int> interrupted{0};
  int interrupted_asked = 0;
  bool serving_in_callback = false;
  std::string text = "101 102";

  void Note() {
    if (std::this_thread::get_id() != caller) ++off_caller;
    serving_in_callback = WorkerRelay::Serving();
  }
};

Host& Of(void* ctx) { return *static_cast<Host*>(ctx); }

pyunwind_callbacks CallbacksFor(Host& host) {
  pyunwind_callbacks cb{};
  cb.ctx = &host;
  cb.read_memory = [](void* ctx, uint64_t address, void* buf, uint64_t size) {
    Of(ctx).Note();
    std::memset(buf, static_cast<int>(address & 0xff), size);
    return 1;
  };
  cb.thread_ids = [](void* ctx) -> const char* {
    Of(ctx).Note();
    return Of(ctx).text.c_str();
  };
  cb.write_output = [](void* ctx, const char* text, uint64_t size) {
    Of(ctx).Note();
    Of(ctx).printed.append(text, size);
    Of(ctx).piece_sizes.push_back(size);
  };
  cb.interrupted = [](void* ctx) {
    Of(ctx).Note();
    ++Of(ctx).interrupted_asked;
    return Of(ctx).interrupted.load();
  };
  return cb;
}

TEST(WorkerRelay, CallbacksRunOnTheCallersThreadAndTheirAnswersReachTheWorker) {
  Host host;
  WorkerRelay relay(CallbacksFor(host));
  const pyunwind_callbacks& cb = relay.relayed();
  EXPECT_EQ(cb.find_symbol, nullptr);  // the host has none: the worker is asked nothing
  std::thread::id worker;
  uint8_t bytes[16] = {};
  int read = 0;
  std::string ids;
  ASSERT_TRUE(relay.Run([&] {
    worker = std::this_thread::get_id();
    read = cb.read_memory(cb.ctx, 0x1234, bytes, sizeof bytes);
    ids = cb.thread_ids(cb.ctx);
  }));
  EXPECT_NE(worker, host.caller);
  EXPECT_EQ(host.off_caller.load(), 0);
  EXPECT_TRUE(host.serving_in_callback);
  EXPECT_FALSE(WorkerRelay::Serving());
  EXPECT_EQ(read, 1);
  EXPECT_EQ(bytes[0], 0x34);
  EXPECT_EQ(bytes[15], 0x34);
  EXPECT_EQ(ids, "101 102");
}

TEST(WorkerRelay, OutputIsPrintedInOrderOnTheCallersThreadBeforeRunReturns) {
  Host host;
  WorkerRelay relay(CallbacksFor(host));
  const pyunwind_callbacks& cb = relay.relayed();
  std::string expected;
  ASSERT_TRUE(relay.Run([&] {
    // More than the relay queues (4 MiB) before the worker waits for the printing.
    for (int i = 0; i < 24; ++i) {
      const std::string piece(size_t{1} << 20, static_cast<char>('a' + i));
      expected += piece;
      cb.write_output(cb.ctx, piece.data(), piece.size());
      if (i % 5 == 0) cb.thread_ids(cb.ctx);  // callbacks between the pieces
    }
  }));
  EXPECT_EQ(host.off_caller.load(), 0);
  EXPECT_EQ(host.piece_sizes.size(), 24u);
  EXPECT_TRUE(host.printed == expected);
}

TEST(WorkerRelay, CtrlCReachesTheWorkerAfterACallbackAndWhileItRunsAlone) {
  Host host;
  WorkerRelay relay(CallbacksFor(host));
  const pyunwind_callbacks& cb = relay.relayed();
  int before = -1;
  int after_callback = -1;
  bool seen_alone = false;
  ASSERT_TRUE(relay.Run([&] {
    before = cb.interrupted(cb.ctx);
    host.interrupted = 1;  // the user presses Ctrl-C during the next callback
    cb.thread_ids(cb.ctx);
    after_callback = cb.interrupted(cb.ctx);
  }));
  EXPECT_EQ(before, 0);
  EXPECT_EQ(after_callback, 1);

  // A worker that makes no callback: the caller asks the host while it waits.
  Host quiet;
  WorkerRelay alone(CallbacksFor(quiet));
  const pyunwind_callbacks& quiet_cb = alone.relayed();
  ASSERT_TRUE(alone.Run([&] {
    quiet.interrupted = 1;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!seen_alone && std::chrono::steady_clock::now() < until) {
      seen_alone = quiet_cb.interrupted(quiet_cb.ctx) == 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }));
  EXPECT_TRUE(seen_alone);
  EXPECT_EQ(quiet.off_caller.load(), 0);
}

// The debugger's signals (Ctrl-C's SIGINT) stay with its own thread.
TEST(WorkerRelay, TheWorkerBlocksSignals) {
  Host host;
  WorkerRelay relay(CallbacksFor(host));
  sigset_t mask;
  sigemptyset(&mask);
  ASSERT_TRUE(relay.Run([&] { pthread_sigmask(SIG_SETMASK, nullptr, &mask); }));
  EXPECT_EQ(sigismember(&mask, SIGINT), 1);
  EXPECT_EQ(sigismember(&mask, SIGCHLD), 1);
  sigset_t here;
  pthread_sigmask(SIG_SETMASK, nullptr, &here);
  EXPECT_EQ(sigismember(&here, SIGINT), 0);
}

}  // namespace
}  // namespace pyunwind::gdb

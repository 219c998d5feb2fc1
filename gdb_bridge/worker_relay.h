// A command run on a thread of its own while the caller's thread serves it.
//
// GDB prints a command's output with gdb.write, and GDB 13 spends about 1.5 ns
// a byte there (a vsnprintf that first sizes the text): 0.7-0.9 ms for the
// 443 KB of py-bt --all on 3,069 frames, as long as the walk itself. GDB's
// Python may be entered on GDB's thread only. So where the library reads the
// process itself (live_pid), a command runs on a worker: each callback it
// makes is relayed to the caller's thread and run there, and each piece of
// output is printed there while the worker goes on reading and formatting the
// next (bench/README.md, "GDB prints while the library walks").
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "gdb_bridge/pyunwind_c_api.h"

namespace pyunwind::gdb {

class WorkerRelay {
 public:
  explicit WorkerRelay(const pyunwind_callbacks& host);
  WorkerRelay(const WorkerRelay&) = delete;
  WorkerRelay& operator=(const WorkerRelay&) = delete;

  // The callbacks for the worker: the host's, each run on the caller's thread
  // (write_output without waiting for it; the piece is copied).
  const pyunwind_callbacks& relayed() const { return relayed_; }

  // Runs `job` on the command thread (started once and kept; it blocks every
  // signal, which are the debugger's, for its own thread: Ctrl-C reaches the
  // host through `interrupted`), and runs here what it relays until it
  // returns. False when there is no such thread or it is busy: `job` has not
  // run.
  bool Run(const std::function<void()>& job);

  // Starts the thread commands run on, if it is not running yet.
  static void StartWorker();

  // Whether this thread is serving a worker now: a command asked for from one
  // of its callbacks, which must not wait for the state the worker holds.
  static bool Serving();

 private:
  // A callback to run on the caller's thread, and where to say that it ran.
  struct Call_ {
    const std::function<void()>* run = nullptr;
    std::atomic<bool>* done = nullptr;
  };
  // Output pieces waiting for the caller at most: beyond this the worker waits.
  static constexpr size_t kMaxQueuedOutputBytes = size_t{4} << 20;

  friend struct RelayTrampolines;
  void Call(const std::function<void()>& call);
  void Print(const char* text, uint64_t size);
  void Serve();
  // Asks the host whether the user stopped the command, until it says yes.
  void AskInterrupted();

  pyunwind_callbacks host_;
  pyunwind_callbacks relayed_;
  std::mutex mutex_;
  std::condition_variable to_caller_;
  std::condition_variable to_worker_;
  std::deque<Call_> calls_;
  std::deque<std::string> pieces_;
  size_t queued_output_bytes_ = 0;
  bool job_returned_ = false;
  // Something for the caller: an item queued or the job returned (read while spinning).
  std::atomic<bool> work_{false};
  std::atomic<bool> interrupted_{false};
};

}  // namespace pyunwind::gdb

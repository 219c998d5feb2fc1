#include "gdb_bridge/worker_relay.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

namespace pyunwind::gdb {
namespace {

thread_local bool serving = false;

// Waits for `ready` spinning, for a while: the hand-offs of a command come tens of
// microseconds to a millisecond apart (the first piece of py-bt --all's text after its
// main thread's walk), and a thread put to sleep took 50-150 us to wake, on a VM with steal
// time milliseconds at times: spinning 2 ms instead of 0.1 made py-bt --all in GDB 14 %
// faster there (bench/README.md). Then the thread sleeps on its condition variable. Not on
// one CPU, where spinning only keeps the other thread off it.
template <typename Ready>
void SpinUntil(Ready ready) {
  static const bool several_cpus = std::thread::hardware_concurrency() > 1;
  if (!several_cpus) return;
  constexpr auto kSpin = std::chrono::milliseconds(2);
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0; !ready(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return;
  }
}

}  // namespace

// The relayed callbacks: each runs the host's through WorkerRelay::Call.
struct RelayTrampolines {
  static WorkerRelay& Of(void* ctx) { return *static_cast<WorkerRelay*>(ctx); }

  static int ReadMemory(void* ctx, uint64_t address, void* buf, uint64_t size) {
    WorkerRelay& relay = Of(ctx);
    int answer = 0;
    relay.Call([&] { answer = relay.host_.read_memory(relay.host_.ctx, address, buf, size); });
    return answer;
  }
  static int FindSymbol(void* ctx, const char* name, uint64_t* address) {
    WorkerRelay& relay = Of(ctx);
    int answer = 0;
    relay.Call([&] { answer = relay.host_.find_symbol(relay.host_.ctx, name, address); });
    return answer;
  }
  static const char* DebuggerCommand(void* ctx, const char* command) {
    WorkerRelay& relay = Of(ctx);
    const char* answer = nullptr;
    relay.Call([&] { answer = relay.host_.debugger_command(relay.host_.ctx, command); });
    return answer;
  }
  static const char* ThreadIds(void* ctx) {
    WorkerRelay& relay = Of(ctx);
    const char* answer = nullptr;
    relay.Call([&] { answer = relay.host_.thread_ids(relay.host_.ctx); });
    return answer;
  }
  static const char* NativeFrames(void* ctx, uint64_t thread_id) {
    WorkerRelay& relay = Of(ctx);
    const char* answer = nullptr;
    relay.Call([&] { answer = relay.host_.native_frames(relay.host_.ctx, thread_id); });
    return answer;
  }
  static const char* DebuggerVersion(void* ctx) {
    WorkerRelay& relay = Of(ctx);
    const char* answer = nullptr;
    relay.Call([&] { answer = relay.host_.debugger_version(relay.host_.ctx); });
    return answer;
  }
  static const char* ThreadName(void* ctx, uint64_t thread_id) {
    WorkerRelay& relay = Of(ctx);
    const char* answer = nullptr;
    relay.Call([&] { answer = relay.host_.thread_name(relay.host_.ctx, thread_id); });
    return answer;
  }
  static void WriteOutput(void* ctx, const char* text, uint64_t size) { Of(ctx).Print(text, size); }
  // Not a trip: the caller's thread asks the host after everything it runs for the worker,
  // and while it waits (WorkerRelay::Serve).
  static int Interrupted(void* ctx) {
    return Of(ctx).interrupted_.load(std::memory_order_acquire) ? 1 : 0;
  }
};

WorkerRelay::WorkerRelay(const pyunwind_callbacks& host) : host_(host), relayed_(host) {
  using T = RelayTrampolines;
  relayed_.ctx = this;
  // A callback the host does not have stays null: the library asks nothing.
  relayed_.read_memory = host.read_memory ? T::ReadMemory : nullptr;
  relayed_.find_symbol = host.find_symbol ? T::FindSymbol : nullptr;
  relayed_.debugger_command = host.debugger_command ? T::DebuggerCommand : nullptr;
  relayed_.thread_ids = host.thread_ids ? T::ThreadIds : nullptr;
  relayed_.native_frames = host.native_frames ? T::NativeFrames : nullptr;
  relayed_.debugger_version = host.debugger_version ? T::DebuggerVersion : nullptr;
  relayed_.thread_name = host.thread_name ? T::ThreadName : nullptr;
  relayed_.write_output = host.write_output ? T::WriteOutput : nullptr;
  relayed_.interrupted = host.interrupted ? T::Interrupted : nullptr;
}

bool WorkerRelay::Serving() { return serving; }

void WorkerRelay::Call(const std::function<void()>& call) {
  std::atomic<bool> done{false};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.push_back(Call_{&call, &done});
    work_.store(true, std::memory_order_release);
    to_caller_.notify_one();
  }
  SpinUntil([&] { return done.load(std::memory_order_acquire); });
  std::unique_lock<std::mutex> lock(mutex_);
  to_worker_.wait(lock, [&] { return done.load(std::memory_order_relaxed); });
}

void WorkerRelay::Print(const char* text, uint64_t size) {
  std::string piece(text, size);
  std::unique_lock<std::mutex> lock(mutex_);
  to_worker_.wait(lock, [&] { return queued_output_bytes_ <= kMaxQueuedOutputBytes; });
  queued_output_bytes_ += piece.size();
  pieces_.push_back(std::move(piece));
  work_.store(true, std::memory_order_release);
  to_caller_.notify_one();
}

void WorkerRelay::AskInterrupted() {
  if (host_.interrupted != nullptr && !interrupted_.load(std::memory_order_relaxed) &&
      host_.interrupted(host_.ctx) != 0) {
    interrupted_.store(true, std::memory_order_release);
  }
}

void WorkerRelay::Serve() {
  // While the worker reads on its own, the host is asked this often whether the user
  // stopped the command (the worker's own checks see the answer).
  constexpr auto kPollInterval = std::chrono::milliseconds(10);
  for (;;) {
    SpinUntil([&] { return work_.load(std::memory_order_acquire); });
    std::unique_lock<std::mutex> lock(mutex_);
    auto ready = [&] { return !calls_.empty() || !pieces_.empty() || job_returned_; };
    if (!to_caller_.wait_for(lock, kPollInterval, ready)) {
      lock.unlock();
      AskInterrupted();
      continue;
    }
    if (calls_.empty() && pieces_.empty()) return;  // the job returned and all it relayed ran
    // A callback before the output waiting: the worker waits for its answer, not for the
    // printing; no callback prints.
    Call_ call{};
    std::string piece;
    if (!calls_.empty()) {
      call = calls_.front();
      calls_.pop_front();
    } else {
      piece = std::move(pieces_.front());
      pieces_.pop_front();
    }
    if (calls_.empty() && pieces_.empty() && !job_returned_) {
      work_.store(false, std::memory_order_relaxed);
    }
    lock.unlock();
    if (call.run != nullptr) {
      (*call.run)();
    } else {
      host_.write_output(host_.ctx, piece.data(), piece.size());
    }
    AskInterrupted();  // the worker asks after each callback whether to drop its answer
    lock.lock();
    if (call.done != nullptr) call.done->store(true, std::memory_order_release);
    queued_output_bytes_ -= piece.size();
    to_worker_.notify_one();
  }
}

namespace {

// The thread commands run on, started once and kept: a thread's first command
// would otherwise pay for a heap and a stack of its own, whose pages fault in
// on first touch. It touches them when it starts, before any command.
class CommandWorker {
 public:
  ~CommandWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  void Start() {
    std::call_once(started_, [this] {
      sigset_t all;
      sigset_t before;
      sigfillset(&all);
      pthread_sigmask(SIG_SETMASK, &all, &before);  // the thread inherits the mask
      try {
        thread_ = std::thread([this] { Loop(); });
      } catch (const std::system_error&) {
      }
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
    });
  }

  // Hands `job` to the thread; false when there is none or it is busy (a job posted
  // from another thread). The poster waits for WaitIdle before it lets go of `job`.
  bool Post(const std::function<void()>& job) {
    Start();
    if (!thread_.joinable()) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (job_ != nullptr || stopping_) return false;
    job_ = &job;
    wake_.notify_one();
    return true;
  }

  // Waits until the thread is done with the job posted: nothing it touched is used after.
  void WaitIdle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return job_ == nullptr; });
  }

 private:
  // Faults in 2 MiB of heap (the thread's malloc arena) and 256 KiB of stack: 227 page
  // faults, 0.3 ms, that the first command paid before (bench/README.md).
  static void WarmUp() {
    std::vector<std::unique_ptr<char[]>> blocks;
    for (int i = 0; i < 512; ++i) {
      blocks.emplace_back(new char[4096]);
      std::memset(blocks.back().get(), 0, 4096);
    }
    volatile char stack[256 << 10];
    for (size_t i = 0; i < sizeof stack; i += 4096) stack[i] = 0;
  }

  void Loop() {
    WarmUp();
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return job_ != nullptr || stopping_; });
      if (stopping_) return;
      const std::function<void()>* job = job_;
      lock.unlock();
      (*job)();
      lock.lock();
      job_ = nullptr;
      idle_.notify_all();
    }
  }

  std::once_flag started_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  const std::function<void()>* job_ = nullptr;
  bool stopping_ = false;
};

CommandWorker& TheWorker() {
  static CommandWorker worker;
  return worker;
}

}  // namespace

void WorkerRelay::StartWorker() { TheWorker().Start(); }

bool WorkerRelay::Run(const std::function<void()>& job) {
  const std::function<void()> relayed_job = [this, &job] {
    job();
    std::lock_guard<std::mutex> lock(mutex_);
    job_returned_ = true;
    work_.store(true, std::memory_order_release);
    to_caller_.notify_one();
  };
  if (!TheWorker().Post(relayed_job)) return false;
  serving = true;
  Serve();
  serving = false;
  TheWorker().WaitIdle();
  return true;
}

}  // namespace pyunwind::gdb

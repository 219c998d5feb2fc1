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

// Waits for `ready` for `duration` at most, yielding the CPU between looks; true when it is.
// The hand-offs of a command come tens of microseconds to a millisecond apart (the first
// piece of py-bt --all's text after its main thread's walk), and a thread put to sleep took
// 50-150 us to wake here, milliseconds at times on a VM with steal time. Yielding, not
// spinning on `pause`: on a loaded machine the worker may need this CPU (py-bt --all in GDB
// took 8.9 ms spinning, 4.2 yielding, 4.5 on GDB's thread alone; bench/README.md). Not on
// one CPU, where it only keeps the other thread off it.
template <typename Ready>
bool YieldUntil(Ready ready, std::chrono::microseconds duration) {
  static const bool several_cpus = std::thread::hardware_concurrency() > 1;
  if (!several_cpus) return ready();
  const auto until = std::chrono::steady_clock::now() + duration;
  for (int i = 0; !ready(); ++i) {
    std::this_thread::yield();
    if (i % 16 == 15 && std::chrono::steady_clock::now() > until) return ready();
  }
  return true;
}

// How long a thread looks for the other's hand-off before it sleeps.
constexpr auto kYieldFor = std::chrono::microseconds(2000);

}  // namespace

// The relayed callbacks.
struct RelayTrampolines {
  static WorkerRelay& Of(void* ctx) { return *static_cast<WorkerRelay*>(ctx); }

  // The host's callback `Member`, run on the caller's thread through WorkerRelay::Call.
  template <auto Member>
  struct Relayed;
  template <typename Answer, typename... Args, Answer (*pyunwind_callbacks::*Member)(void*, Args...)>
  struct Relayed<Member> {
    static Answer Run(void* ctx, Args... args) {
      WorkerRelay& relay = Of(ctx);
      Answer answer{};
      relay.Call([&] { answer = (relay.host_.*Member)(relay.host_.ctx, args...); });
      return answer;
    }
  };
  // The relayed one for `Member`, null where the host has none: the library asks nothing.
  template <auto Member>
  static auto For(const pyunwind_callbacks& host) {
    return host.*Member != nullptr ? &Relayed<Member>::Run : nullptr;
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
  using C = pyunwind_callbacks;
  relayed_.ctx = this;
  relayed_.read_memory = T::For<&C::read_memory>(host);
  relayed_.find_symbol = T::For<&C::find_symbol>(host);
  relayed_.debugger_command = T::For<&C::debugger_command>(host);
  relayed_.thread_ids = T::For<&C::thread_ids>(host);
  relayed_.native_frames = T::For<&C::native_frames>(host);
  relayed_.debugger_version = T::For<&C::debugger_version>(host);
  relayed_.thread_name = T::For<&C::thread_name>(host);
  relayed_.write_output = host.write_output ? T::WriteOutput : nullptr;
  relayed_.interrupted = host.interrupted ? T::Interrupted : nullptr;
  relayed_.stack_pointer = T::For<&C::stack_pointer>(host);
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
  YieldUntil([&] { return done.load(std::memory_order_acquire); }, kYieldFor);
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
  constexpr int kLooks = 4;  // asking between them: Ctrl-C seen within kYieldFor / kLooks
  for (;;) {
    const auto has_work = [&] { return work_.load(std::memory_order_acquire); };
    for (int look = 0; look < kLooks && !YieldUntil(has_work, kYieldFor / kLooks); ++look) {
      AskInterrupted();
    }
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

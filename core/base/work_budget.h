// What one command may spend on a target, whatever the target holds. Each
// bound alone is not enough: a small core can make cheap steps repeat (65,536
// code objects sharing one 1 MiB line table, 4,096 threads sharing one frame
// chain, cache hits that cost no read). So the work itself is counted, and a
// command that runs out stops reading and says so (WorkBudget::Reason).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "core/base/limits.h"
#include "core/base/result.h"

namespace pyunwind {

enum class Work : size_t {
  kBytesRead,         // bytes copied out of the page cache, hits included
  kFrames,            // interpreter frames visited (thread stacks)
  kCodeObjects,       // code objects decoded
  kLineTableEntries,  // location-table entries decoded
  kContainerEntries,  // dict, set, list and tuple entries read
  kCoroutineLinks,    // coroutines followed down the await chains of tasks
  kHeapObjects,       // objects of the collector's lists visited (py-heap)
  kCount,
};

// What each kind of work is called in messages and --stats.
inline const char* WorkName(Work work) {
  switch (work) {
    case Work::kBytesRead: return "bytes read";
    case Work::kFrames: return "frames visited";
    case Work::kCodeObjects: return "code objects decoded";
    case Work::kLineTableEntries: return "line-table entries decoded";
    case Work::kContainerEntries: return "container entries read";
    case Work::kCoroutineLinks: return "coroutine links followed";
    case Work::kHeapObjects: return "heap objects visited";
    case Work::kCount: break;
  }
  return "?";
}

// Its key in --stats --json ("frames_visited").
inline const char* WorkKey(Work work) {
  switch (work) {
    case Work::kBytesRead: return "bytes_read";
    case Work::kFrames: return "frames_visited";
    case Work::kCodeObjects: return "code_objects_decoded";
    case Work::kLineTableEntries: return "line_table_entries_decoded";
    case Work::kContainerEntries: return "container_entries_read";
    case Work::kCoroutineLinks: return "coroutine_links_followed";
    case Work::kHeapObjects: return "heap_objects_visited";
    case Work::kCount: break;
  }
  return "?";
}

class WorkBudget {
 public:
  using Amounts = std::array<uint64_t, static_cast<size_t>(Work::kCount)>;

  // The defaults (core/base/limits.h) never bind on real programs (bench/README.md).
  static constexpr Amounts kDefaultLimits = {
      kMaxWorkBytesRead,        kMaxWorkFrames,           kMaxWorkCodeObjects,
      kMaxWorkLineTableEntries, kMaxWorkContainerEntries, kMaxWorkCoroutineLinks,
      kMaxWorkHeapObjects};

  explicit WorkBudget(const Amounts& limits = kDefaultLimits) : limits_(limits) {}

  // How often Spend asks whether the user stopped the command: every call is too often for a
  // debugger call (py-bt makes ~10^5), and a few thousand take well under a millisecond.
  static constexpr uint32_t kSpendsPerInterruptPoll = 4096;

  // `interrupted` says whether the user stopped the command (Ctrl-C); once it has, every
  // Spend fails, as when the budget runs out. Kept across Reset.
  void PollForInterrupt(std::function<bool()> interrupted) { interrupted_poll_ = std::move(interrupted); }

  // Counts `amount` of `work`; false once this or any other kind has run out, and
  // from then on (a command that ran out stops everywhere, not only in one reader).
  bool Spend(Work work, uint64_t amount) {
    if (exhausted_ || interrupted_) return false;
    if (--spends_until_poll_ == 0) {
      spends_until_poll_ = kSpendsPerInterruptPoll;
      if (interrupted_poll_ && interrupted_poll_()) {
        interrupted_ = true;
        return false;
      }
    }
    uint64_t& spent = spent_[static_cast<size_t>(work)];
    if (amount > limits_[static_cast<size_t>(work)] - spent) {
      exhausted_ = work;
      return false;
    }
    spent += amount;
    return true;
  }
  bool Exhausted() const { return exhausted_.has_value() || interrupted_; }
  bool Interrupted() const { return interrupted_; }

  // The warning a command that ran out prints, ending "...truncated".
  std::optional<std::string> Reason() const {
    if (interrupted_) return "interrupted: output is incomplete...truncated";
    if (!exhausted_) return std::nullopt;
    return "the work budget of one command ran out (more than " +
           std::to_string(limits_[static_cast<size_t>(*exhausted_)]) + " " +
           WorkName(*exhausted_) + "): output is incomplete...truncated";
  }

  // The error of a reader that ran out: Reason(), kInterrupted or kBudgetExhausted. Only once
  // Exhausted().
  Error StopError() const {
    return MakeError(interrupted_ ? ErrorKind::kInterrupted : ErrorKind::kBudgetExhausted,
                     Reason().value_or(""));
  }

  uint64_t Spent(Work work) const { return spent_[static_cast<size_t>(work)]; }
  uint64_t Limit(Work work) const { return limits_[static_cast<size_t>(work)]; }

  // A new command starts with the whole budget.
  void Reset() {
    spent_ = {};
    exhausted_.reset();
    interrupted_ = false;
    spends_until_poll_ = kSpendsPerInterruptPoll;
  }

 private:
  Amounts limits_;
  Amounts spent_{};
  std::optional<Work> exhausted_;
  bool interrupted_ = false;
  uint32_t spends_until_poll_ = kSpendsPerInterruptPoll;
  std::function<bool()> interrupted_poll_;
};

}  // namespace pyunwind

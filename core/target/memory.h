// A page cache over Target::ReadMemory. Debugger reads are the expensive
// part (an SB API call in LLDB, a Python call in GDB), so the core reads the
// target only through this cache, in whole pages, and counts what it costs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeindex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/limits.h"
#include "core/base/work_budget.h"
#include "core/target/page_arena.h"
#include "core/target/target.h"

namespace pyunwind {

struct MemoryStats {
  uint64_t target_reads = 0;    // calls to Target::ReadMemory
  uint64_t target_bytes = 0;    // bytes those calls asked for
  uint64_t failed_reads = 0;    // calls that failed
  uint64_t cache_hits = 0;      // page look-ups served from the cache
  uint64_t cache_misses = 0;    // page look-ups that needed the target
};

class RemoteMemory {
 public:
  static constexpr uint64_t kPageSize = PageArena::kPageSize;
  // Most pages fetched per target read on a miss (Target::PagesPerFetch, a
  // power of two up to this); cut back to one page where the larger block is
  // not all readable (the end of a mapping).
  static constexpr uint64_t kMaxPagesPerFetch = 16;
  static_assert(kMaxPagesPerFetch <= PageArena::kPagesPerSlab);

  // Pages kept at most; past it the cache starts over (py-tasks over a
  // million tasks reads a gigabyte once: the debugger must not keep it).
  // Walks revisit few pages (py-bt --all on 3,069 frames reads 353; py-tasks
  // reads tasks in address order), and each page kept is memory the debugger
  // touches for the first time: py-tasks on 100,000 tasks made 6,000 more
  // page faults in LLDB with 32 MiB than with 8 MiB, for 1% fewer reads.
  static constexpr size_t kMaxCachedPages = 2048;  // 8 MiB

  explicit RemoteMemory(Target& target, uint64_t byte_budget = kMaxBytesReadPerCommand,
                        const WorkBudget::Amounts& work_limits = WorkBudget::kDefaultLimits)
      : target_(target), byte_budget_(byte_budget), budget_(work_limits) {
    budget_.PollForInterrupt([this] { return target_.Interrupted(); });
  }
  RemoteMemory(const RemoteMemory&) = delete;  // the budget's poll points to this
  RemoteMemory& operator=(const RemoteMemory&) = delete;

  // Copies `size` bytes at `address` into `out`; false if any byte is unreadable.
  bool Read(uint64_t address, void* out, size_t size);

  template <typename T>
  std::optional<T> ReadValue(uint64_t address) {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    if (!Read(address, &value, sizeof(T))) return std::nullopt;
    return value;
  }
  std::optional<uint64_t> ReadPointer(uint64_t address) { return ReadValue<uint64_t>(address); }

  // Reads directly from the target, bypassing the cache and the read budget:
  // large scans, which bound themselves (kMaxBytesScannedForRuntime).
  bool ReadUncached(uint64_t address, void* out, size_t size);

  // The bytes fetched from the target ran out (byte_budget).
  bool BudgetExhausted() const { return budget_exhausted_; }
  // The command's work budget; Read fails once it has run out.
  WorkBudget& budget() { return budget_; }
  // Why the command's output is incomplete, if a budget ran out ("...truncated").
  std::optional<std::string> BudgetWarning() const;
  // Lets `bytes` more be read from now on (a command that reads more than most).
  void AllowMoreBytes(uint64_t bytes) {
    byte_budget_ = std::max(byte_budget_, stats_.target_bytes + bytes);
  }
  const MemoryStats& stats() const { return stats_; }
  Target& target() { return target_; }

  // A new command reads through the pages an earlier one read at the same
  // stop: its stats, its byte budget and its work budget start from zero, the
  // pages stay.
  void StartCommand() {
    stats_ = {};
    budget_exhausted_ = false;
    budget_.Reset();
  }
  // Bytes the cached pages hold.
  uint64_t CachedBytes() const { return pages_.size() * kPageSize; }

  // Forgets every cached page (the target has run since) and what was
  // remembered about them.
  void Clear() {
    DropPages();
    remembered_.clear();
  }
  // Forgets the pages only (they grew too many); what was remembered stays true.
  void DropPages() {
    pages_.clear();
    arena_.Reset();
    blocks_not_whole_.clear();
    last_page_address_ = ~0ull;
    last_page_ = nullptr;
  }

  // A fact found in this memory that is costly to find again (a scan's
  // result), one per type, kept as long as the memory has not changed (until
  // Clear). Recalled: the one remembered, or null.
  template <typename T>
  const T* Recalled() const {
    auto it = remembered_.find(std::type_index(typeid(T)));
    return it == remembered_.end() ? nullptr : static_cast<const T*>(it->second.get());
  }
  template <typename T>
  const T& Remember(T fact) {
    auto kept = std::make_shared<T>(std::move(fact));
    const T& ref = *kept;
    remembered_[std::type_index(typeid(T))] = std::move(kept);
    return ref;
  }

 private:
  struct Page {
    bool readable = false;
    const uint8_t* bytes = nullptr;  // kPageSize bytes in arena_; null if unreadable
  };
  const Page& GetPage(uint64_t page_address);
  uint8_t* AllocatePages(size_t count);  // from arena_; throws std::bad_alloc
  uint64_t PagesPerFetch() const;
  bool FetchFromTarget(uint64_t address, void* out, size_t size);
  bool CountedFetch(uint64_t address, void* out, size_t size);

  Target& target_;
  uint64_t byte_budget_;
  bool budget_exhausted_ = false;
  WorkBudget budget_;
  PageArena arena_;
  std::unordered_map<uint64_t, Page> pages_;
  std::unordered_set<uint64_t> blocks_not_whole_;  // blocks with an unreadable page
  uint64_t last_page_address_ = ~0ull;
  const Page* last_page_ = nullptr;
  MemoryStats stats_;
  std::unordered_map<std::type_index, std::shared_ptr<const void>> remembered_;
};

}  // namespace pyunwind

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
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/limits.h"
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
  static constexpr uint64_t kPageSize = 4096;
  // Pages fetched per target read on a miss; cut back to one page where the
  // larger block is not all readable (the end of a mapping).
  // Four pages: fewer bytes than 16 moved through LLDB (which pays per byte)
  // and still few calls through GDB (which pays per call); bench/README.md.
  static constexpr uint64_t kPagesPerFetch = 4;

  // Pages kept at most; past it the cache starts over (py-tasks over a
  // million tasks reads a gigabyte once: the debugger must not keep it).
  static constexpr size_t kMaxCachedPages = 8192;  // 32 MiB

  explicit RemoteMemory(Target& target, uint64_t byte_budget = kMaxBytesReadPerCommand)
      : target_(target), byte_budget_(byte_budget) {}

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

  // Reads directly from the target, bypassing the cache (large scans).
  bool ReadUncached(uint64_t address, void* out, size_t size);

  bool BudgetExhausted() const { return budget_exhausted_; }
  // Lets `bytes` more be read from now on (a command that reads more than most).
  void AllowMoreBytes(uint64_t bytes) {
    byte_budget_ = std::max(byte_budget_, stats_.target_bytes + bytes);
  }
  const MemoryStats& stats() const { return stats_; }
  Target& target() { return target_; }

  // Forgets every cached page (the target has run since).
  void Clear() {
    pages_.clear();
    blocks_not_whole_.clear();
    last_page_address_ = ~0ull;
    last_page_ = nullptr;
  }

 private:
  struct Page {
    bool readable = false;
    std::unique_ptr<uint8_t[]> bytes;
  };
  const Page& GetPage(uint64_t page_address);
  bool FetchFromTarget(uint64_t address, void* out, size_t size);

  Target& target_;
  uint64_t byte_budget_;
  bool budget_exhausted_ = false;
  std::unordered_map<uint64_t, Page> pages_;
  std::unordered_set<uint64_t> blocks_not_whole_;  // blocks with an unreadable page
  uint64_t last_page_address_ = ~0ull;
  const Page* last_page_ = nullptr;
  MemoryStats stats_;
};

}  // namespace pyunwind

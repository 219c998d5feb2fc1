// A Target over memory built by a test: mapped regions (address -> bytes),
// symbols, modules and thread ids, with a log of every read. Writing outside
// a mapped region throws, so a mistake in a test image fails that test.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/target/target.h"

namespace pyunwind::testing {

class FakeTarget : public Target {
 public:
  struct Region {
    std::vector<uint8_t> bytes;
    bool readable = true;
    bool writable = true;
    std::string name;
  };

  // Maps `size` zero bytes at `start`. Regions must not overlap.
  void Map(uint64_t start, uint64_t size, bool writable = true, bool readable = true,
           std::string name = "") {
    auto next = regions_.lower_bound(start);
    if (next != regions_.end() && next->first < start + size) {
      throw std::logic_error("FakeTarget::Map: regions overlap");
    }
    if (next != regions_.begin()) {
      auto previous = std::prev(next);
      if (previous->first + previous->second.bytes.size() > start) {
        throw std::logic_error("FakeTarget::Map: regions overlap");
      }
    }
    regions_[start] = Region{std::vector<uint8_t>(size), readable, writable, std::move(name)};
  }

  // Fills a mapped region with pseudo-random bytes.
  void FillRandom(uint64_t start, uint32_t seed) {
    Region& region = regions_.at(start);
    for (uint8_t& byte : region.bytes) {
      seed = seed * 1664525u + 1013904223u;
      byte = static_cast<uint8_t>(seed >> 24);
    }
  }

  void Write(uint64_t address, const void* data, size_t size) {
    const auto* in = static_cast<const uint8_t*>(data);
    while (size > 0) {
      auto [region_start, region] = Find(address);
      if (region == nullptr) {
        throw std::out_of_range("FakeTarget::Write outside the mapped regions");
      }
      const uint64_t offset = address - region_start;
      const size_t chunk = std::min<uint64_t>(size, region->bytes.size() - offset);
      std::memcpy(region->bytes.data() + offset, in, chunk);
      in += chunk;
      address += chunk;
      size -= chunk;
    }
  }
  template <typename T>
  void Put(uint64_t address, const T& value) {
    Write(address, &value, sizeof(T));
  }
  void PutU64(uint64_t address, uint64_t value) { Put<uint64_t>(address, value); }
  void PutU32(uint64_t address, uint32_t value) { Put<uint32_t>(address, value); }
  void PutU8(uint64_t address, uint8_t value) { Put<uint8_t>(address, value); }
  void PutBytes(uint64_t address, std::string_view bytes) {
    Write(address, bytes.data(), bytes.size());
  }

  // Target.
  bool ReadMemory(uint64_t address, void* out, size_t size) override {
    ++read_calls;
    reads.emplace_back(address, size);
    auto* dest = static_cast<uint8_t*>(out);
    if (address + size < address) return false;
    while (size > 0) {
      auto [region_start, region] = Find(address);
      if (region == nullptr || !region->readable) return false;
      const uint64_t offset = address - region_start;
      const size_t chunk = std::min<uint64_t>(size, region->bytes.size() - offset);
      std::memcpy(dest, region->bytes.data() + offset, chunk);
      dest += chunk;
      address += chunk;
      size -= chunk;
    }
    return true;
  }
  std::optional<uint64_t> FindSymbol(std::string_view name) override {
    auto found = symbols.find(std::string(name));
    if (found == symbols.end()) return std::nullopt;
    return found->second;
  }
  std::vector<MemoryRegion> MemoryRegions() override {
    if (!list_regions) return {};
    std::vector<MemoryRegion> out;
    for (const auto& [start, region] : regions_) {
      out.push_back({start, start + region.bytes.size(), region.readable, region.writable,
                     region.name});
    }
    return out;
  }
  std::vector<LoadedModule> Modules() override { return modules; }
  std::vector<uint64_t> ThreadIds() override { return thread_ids; }
  std::optional<uint64_t> StackPointer(uint64_t thread_id) override {
    auto found = stack_pointers.find(thread_id);
    if (found == stack_pointers.end()) return std::nullopt;
    return found->second;
  }
  bool Interrupted() override { return interrupted; }
  std::optional<uint64_t> LocalProcessId() override { return live_pid; }
  std::optional<ProcessUser> CoreUser() override { return core_user; }

  std::optional<uint64_t> live_pid;       // "a live process on this host" (its /proc/PID)
  std::optional<ProcessUser> core_user;   // a core's NT_PRPSINFO user
  std::map<std::string, uint64_t> symbols;
  std::vector<LoadedModule> modules;
  std::vector<uint64_t> thread_ids;
  std::map<uint64_t, uint64_t> stack_pointers;  // thread id -> its innermost frame's SP
  bool list_regions = true;  // false: a host that cannot list regions

  // Every ReadMemory call: address and size.
  size_t read_calls = 0;
  bool interrupted = false;  // Ctrl-C
  std::vector<std::pair<uint64_t, size_t>> reads;

 private:
  std::pair<uint64_t, Region*> Find(uint64_t address) {
    auto next = regions_.upper_bound(address);
    if (next == regions_.begin()) return {0, nullptr};
    auto region = std::prev(next);
    if (address - region->first >= region->second.bytes.size()) return {0, nullptr};
    return {region->first, &region->second};
  }

  std::map<uint64_t, Region> regions_;
};

// A bump allocator over one mapped region of a FakeTarget.
class FakeHeap {
 public:
  FakeHeap(FakeTarget& target, uint64_t start, uint64_t size)
      : start_(start), next_(start), end_(start + size) {
    target.Map(start, size, /*writable=*/true, /*readable=*/true, "[heap]");
  }
  uint64_t Alloc(uint64_t size, uint64_t align = 16) {
    next_ = (next_ + align - 1) & ~(align - 1);
    const uint64_t address = next_;
    next_ += size;
    if (next_ > end_) throw std::length_error("FakeHeap is full");
    return address;
  }
  uint64_t start() const { return start_; }

 private:
  uint64_t start_, next_, end_;
};

}  // namespace pyunwind::testing

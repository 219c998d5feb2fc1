// The fuzz target's compact input form, "PYUS": an interpreter state as the
// pages it lives in. Written by make_seed (a fixture core shrunk) and
// make_amplification_seeds (images built like the tests build them); read by
// the fuzz target, which expands it into an ELF core.
//
//   "PYUS", u8 thread count, that many u32 thread ids, then records of
//   u64 page address (bit 0: writable), u64 mask of the page's 64-byte pieces
//   present (the others are zero), and those pieces.
//
// Mutating a state mutates real pointers, counts and strings directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pyunwind::fuzz {

inline constexpr uint64_t kStatePage = 4096;
inline constexpr size_t kMaxStatePages = 2048;  // 8 MiB of expanded image at most

struct StatePage {
  uint64_t address;  // page-aligned
  bool writable;
  std::vector<uint8_t> bytes;  // kStatePage of them
};

// The state of `pages` (at most 255 thread ids are kept).
std::vector<uint8_t> EncodeState(const std::vector<uint64_t>& thread_ids,
                                 const std::vector<StatePage>& pages);

// An ELF core of the state in `data` (which starts with "PYUS"), one
// NT_PRSTATUS note per thread id; whatever the bytes, a core the reader can try.
std::vector<uint8_t> ExpandState(const uint8_t* data, size_t size);

// An ELF core of one writable mapping of `bytes` at `address`, one thread.
std::vector<uint8_t> CoreOfOneMapping(uint64_t address, std::vector<uint8_t> bytes);

}  // namespace pyunwind::fuzz

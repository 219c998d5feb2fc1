// What pyunwind asks LLDB to read for `size` bytes at `address`: never at most one line of LLDB's
// memory cache (`target.process.memory-cache-line-size`, 512 bytes by default).
//
// LLDB 14's MemoryCache::Read (lldb/source/Target/Memory.cpp) serves a read of at most one line
// through its line cache, reading whole lines from the process. When the process gives a line
// only in part (a process killed in the middle of the read), it takes the missing bytes off the
// request's size, which wraps below zero, and copies what it got to the caller's buffer + (size
// - missing) - got: up to a line's worth of bytes written before the caller's buffer, into
// whatever lies there (the stack frame of StopCache::SessionAt under its 8-byte probe read of a
// killed process: the ASan abort of tests/e2e/bad_inputs_test.cc, ExitWhileRead). A read larger
// than a line goes to the process directly, into a buffer of its own size. So every read through
// LLDB is the whole pages around the bytes asked for, more than a line, and the bytes are copied
// out of it.
#pragma once

#include <cstdint>
#include <optional>

namespace pyunwind_lldb {

struct ReadSpan {
  uint64_t start = 0;  // page-aligned, at or below the address
  uint64_t size = 0;   // whole pages, more than `line_size`
};

// The span for [address, address + size) given LLDB's cache line size; nullopt where the
// range (or the span) would pass the top of the address space, or asks for nothing.
inline std::optional<ReadSpan> SpanAvoidingTheLineCache(uint64_t address, uint64_t size,
                                                        uint64_t line_size) {
  constexpr uint64_t kPage = 4096;
  if (size == 0 || address + size < address) return std::nullopt;
  if (size > line_size) return ReadSpan{address, size};  // LLDB reads it directly
  const uint64_t start = address & ~(kPage - 1);
  const uint64_t last = address + size - 1;
  if (last > UINT64_MAX - kPage) return std::nullopt;
  uint64_t end = (last & ~(kPage - 1)) + kPage;
  while (end - start <= line_size) {
    if (end > UINT64_MAX - kPage) return std::nullopt;
    end += kPage;
  }
  return ReadSpan{start, end - start};
}

}  // namespace pyunwind_lldb

// Direct reads of a live local process's memory through /proc/PID/mem.
// LLDB's SBProcess::ReadMemory costs ~80 ms per MiB on a live process (a
// round trip to lldb-server); pread on /proc/PID/mem is two orders faster.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pyunwind_lldb {

class ProcMem {
 public:
  ProcMem() = default;
  explicit ProcMem(uint64_t pid);
  ~ProcMem();
  ProcMem(const ProcMem&) = delete;
  ProcMem& operator=(const ProcMem&) = delete;

  bool IsOpen() const { return fd_ >= 0; }
  // True when all `size` bytes were read.
  bool Read(uint64_t address, void* out, size_t size) const;

 private:
  int fd_ = -1;
};

}  // namespace pyunwind_lldb

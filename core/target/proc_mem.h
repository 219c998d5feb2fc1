// Direct reads of a live process's memory on this host through /proc/PID/mem,
// for front-ends whose debugger reads more slowly: LLDB's SBProcess::ReadMemory
// costs ~80 ms per MiB on a live process (a round trip to lldb-server), GDB's
// a Python call per read. A pread is two orders faster. The front-end decides
// that PID names the process it debugs (lldb_plugin/local_process.h; GDB's
// native target).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pyunwind {

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

}  // namespace pyunwind

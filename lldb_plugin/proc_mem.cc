#include "lldb_plugin/proc_mem.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace pyunwind_lldb {

ProcMem::ProcMem(uint64_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/mem";
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

ProcMem::~ProcMem() {
  if (fd_ >= 0) ::close(fd_);
}

bool ProcMem::Read(uint64_t address, void* out, size_t size) const {
  if (fd_ < 0 || address > static_cast<uint64_t>(INT64_MAX)) return false;
  return ::pread(fd_, out, size, static_cast<off_t>(address)) == static_cast<ssize_t>(size);
}

}  // namespace pyunwind_lldb

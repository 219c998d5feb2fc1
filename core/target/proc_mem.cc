#include "core/target/proc_mem.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

namespace pyunwind {

ProcMem::ProcMem(uint64_t pid) {
  if (pid == 0 || pid > INT32_MAX) return;
  const std::string path = "/proc/" + std::to_string(pid) + "/mem";
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

ProcMem::~ProcMem() {
  if (fd_ >= 0) ::close(fd_);
}

bool ProcMem::Read(uint64_t address, void* out, size_t size) const {
  if (fd_ < 0) return false;
  auto* dest = static_cast<uint8_t*>(out);
  while (size > 0) {
    if (address > static_cast<uint64_t>(INT64_MAX)) return false;
    const ssize_t n = ::pread(fd_, dest, size, static_cast<off_t>(address));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // an unmapped address: EIO, or nothing
    dest += n;
    address += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace pyunwind

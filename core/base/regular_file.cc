#include "core/base/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace pyunwind {

RegularFile RegularFile::Open(const std::string& path) {
  RegularFile file;
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOCTTY: a terminal must not
  // become the debugger's controlling terminal.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    file.failure_ = Failure::kCannotOpen;
    file.error_ = errno;
    if (fd >= 0) ::close(fd);
    return file;
  }
  if (!S_ISREG(st.st_mode)) {
    file.failure_ = Failure::kNotRegular;
    ::close(fd);
    return file;
  }
  file.fd_ = fd;
  file.failure_ = Failure::kNone;
  file.size_ = st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return file;
}

std::string ReadFileStart(const std::string& path, size_t max_bytes) {
  const RegularFile file = RegularFile::Open(path);
  if (file.failure() != RegularFile::Failure::kNone) return {};
  std::string text(max_bytes, '\0');
  size_t size = 0;
  while (size < max_bytes) {
    const ssize_t got = ::read(file.fd(), text.data() + size, max_bytes - size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    size += static_cast<size_t>(got);
  }
  text.resize(size);
  return text;
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      failure_(other.failure_),
      error_(other.error_),
      size_(other.size_) {}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace pyunwind

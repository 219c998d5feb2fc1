// Opening a file whose path the target chose (a module a core names, a code object's source
// file): a FIFO is not waited on, a terminal does not become the debugger's controlling
// terminal, and only a regular file is handed back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pyunwind {

// At most the first `max_bytes` of the regular file at `path` (a small /proc file's text);
// empty where it cannot be opened or read.
std::string ReadFileStart(const std::string& path, size_t max_bytes);

class RegularFile {
 public:
  enum class Failure { kNone, kCannotOpen, kNotRegular };

  static RegularFile Open(const std::string& path);
  RegularFile() = default;  // no file: failure() kCannotOpen, fd() -1
  ~RegularFile();
  RegularFile(RegularFile&& other) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  RegularFile& operator=(RegularFile&&) = delete;

  Failure failure() const { return failure_; }
  int error() const { return error_; }  // errno of a kCannotOpen
  int fd() const { return fd_; }        // open for reading when failure() is kNone
  uint64_t size() const { return size_; }

 private:
  int fd_ = -1;
  Failure failure_ = Failure::kCannotOpen;
  int error_ = 0;
  uint64_t size_ = 0;
};

}  // namespace pyunwind

#include "core/commands/output_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace pyunwind {
namespace {

Error CannotWrite(const std::string& path, int error) {
  return MakeError(fmt::format("cannot write {}: {}", path, std::strerror(error)));
}

}  // namespace

Result<OutputFile> OutputFile::Create(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "we");  // close-on-exec: LLDB and GDB fork
  if (file == nullptr) return CannotWrite(path, errno);
  return OutputFile(path, file);
}

void OutputFile::Write(std::string_view text) {
  if (error_ != 0 || text.empty()) return;
  if (std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size()) {
    error_ = errno != 0 ? errno : EIO;
    return;
  }
  bytes_ += text.size();
}

Result<uint64_t> OutputFile::Close() {
  std::FILE* file = file_.release();
  if (file == nullptr) return CannotWrite(path_, EBADF);
  if (std::fclose(file) != 0 && error_ == 0) error_ = errno != 0 ? errno : EIO;
  if (error_ != 0) return CannotWrite(path_, error_);
  return bytes_;
}

}  // namespace pyunwind

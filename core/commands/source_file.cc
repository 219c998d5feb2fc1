#include "core/commands/source_file.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/limits.h"
#include "core/base/regular_file.h"

namespace pyunwind {

Result<SourceLines> ReadSourceLines(const std::string& path, int first, int last) {
  if (path.empty()) return MakeError("the code object names no file");
  const RegularFile file = RegularFile::Open(path);
  switch (file.failure()) {
    case RegularFile::Failure::kCannotOpen:
      return MakeError(fmt::format("cannot read '{}': {}", path, std::strerror(file.error())));
    case RegularFile::Failure::kNotRegular:
      return MakeError(fmt::format("'{}' is not a regular file: its source is not read", path));
    case RegularFile::Failure::kNone:
      break;
  }
  SourceLines out;
  out.first = first < 1 ? 1 : first;
  last = std::min(last, static_cast<int>(kMaxSourceLines));  // lines past it are not read
  std::string line;
  int number = 1;
  bool cut = false;  // the current line passed kMaxSourceLineLength
  uint64_t total = 0;
  char buffer[1 << 16];
  auto finish_line = [&] {
    if (number >= out.first && number <= last) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (cut) line += "...";
      out.lines.push_back(std::move(line));
    }
    line.clear();
    cut = false;
    ++number;
  };
  // Keeps `piece` of the current line, up to kMaxSourceLineLength of it.
  auto keep = [&](const char* piece, size_t size) {
    if (number < out.first || size == 0) return;
    const size_t room = kMaxSourceLineLength - std::min(line.size(), kMaxSourceLineLength);
    line.append(piece, std::min(size, room));
    cut = cut || size > room;
  };
  while (number <= last && total < kMaxSourceFileBytes) {
    const ssize_t n = read(file.fd(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    const char* at = buffer;
    const char* const end = buffer + n;
    while (at < end && number <= last) {
      const char* newline = static_cast<const char*>(std::memchr(at, '\n', end - at));
      keep(at, (newline ? newline : end) - at);
      if (newline == nullptr) break;
      finish_line();
      at = newline + 1;
    }
  }
  if (!line.empty() && number <= last) finish_line();  // a last line without '\n'
  return out;
}

}  // namespace pyunwind

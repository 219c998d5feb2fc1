#include "core/pysource/source_file.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/base/limits.h"
#include "core/base/regular_file.h"

namespace pyunwind {

namespace {

// Opens `path` as the tests and the analyst's own paths are read: only a regular file.
Result<RegularFile> OpenSourceFile(const std::string& path) {
  if (path.empty()) return MakeError("the code object names no file");
  RegularFile opened = RegularFile::Open(path);
  switch (opened.failure()) {
    case RegularFile::Failure::kCannotOpen:
      return MakeError(fmt::format("cannot read '{}': {}", path, std::strerror(opened.error())));
    case RegularFile::Failure::kNotRegular:
      return MakeError(fmt::format("'{}' is not a regular file: its source is not read", path));
    case RegularFile::Failure::kNone:
      break;
  }
  return opened;
}

// Reads the open `file` (named `path`) up to line `last` (at most kMaxSourceLines,
// kMaxSourceFileBytes), handing each line whose number `wanted` accepts to
// `take(number, text)`: without its line end, cut at kMaxSourceLineLength.
// Lines not wanted are skipped, not copied.
template <typename Wanted, typename Take>
Status ScanSourceFile(const RegularFile& file, const std::string& path, int last, Wanted wanted,
                      Take take) {
  last = std::min(last, static_cast<int>(kMaxSourceLines));  // lines past it are not read
  std::string line;
  int number = 1;
  bool keeping = wanted(number);
  bool cut = false;  // the current line passed kMaxSourceLineLength
  uint64_t total = 0;
  // 16 KiB: a larger buffer is fresh stack, a page fault per 4 KiB (prefault.h).
  char buffer[1 << 14];
  auto finish_line = [&] {
    if (keeping) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (cut) line += "...";
      take(number, std::move(line));
    }
    line.clear();
    cut = false;
    ++number;
    keeping = number <= last && wanted(number);
  };
  // Keeps `piece` of the current line, up to kMaxSourceLineLength of it.
  auto keep = [&](const char* piece, size_t size) {
    if (!keeping || size == 0) return;
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
  return Ok{};
}

}  // namespace

Result<SourceLines> ReadSourceLines(const std::string& path, int first, int last) {
  PYU_ASSIGN_OR_RETURN(const RegularFile file, OpenSourceFile(path));
  return ReadSourceLines(file, path, first, last);
}

Result<SourceLines> ReadSourceLines(const RegularFile& file, const std::string& path, int first,
                                    int last) {
  SourceLines out;
  out.first = first < 1 ? 1 : first;
  PYU_RETURN_IF_ERROR(ScanSourceFile(
      file, path, last, [&](int number) { return number >= out.first; },
      [&](int, std::string text) { out.lines.push_back(std::move(text)); }));
  return out;
}

Result<std::vector<NumberedLine>> ReadNumberedSourceLines(const std::string& path,
                                                         const std::vector<int>& numbers) {
  PYU_ASSIGN_OR_RETURN(const RegularFile file, OpenSourceFile(path));
  return ReadNumberedSourceLines(file, path, numbers);
}

Result<std::vector<NumberedLine>> ReadNumberedSourceLines(const RegularFile& file,
                                                         const std::string& path,
                                                         const std::vector<int>& numbers) {
  std::vector<NumberedLine> out;
  if (numbers.empty()) return out;
  auto next = numbers.begin();  // the first number not passed yet
  PYU_RETURN_IF_ERROR(ScanSourceFile(
      file, path, numbers.back(),
      [&](int number) {
        while (next != numbers.end() && *next < number) ++next;
        return next != numbers.end() && *next == number;
      },
      [&](int number, std::string text) { out.push_back({number, std::move(text)}); }));
  return out;
}

}  // namespace pyunwind

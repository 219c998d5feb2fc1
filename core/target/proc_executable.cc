#include "core/target/proc_executable.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace pyunwind {
namespace {

// AT_ENTRY of /proc/PID/auxv: (type, value) pairs of 64-bit words up to AT_NULL.
std::optional<uint64_t> EntryPointOf(const std::string& proc) {
  const int fd = ::open((proc + "/auxv").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  uint64_t words[256];  // the kernel writes about 25 pairs
  const ssize_t got = ::read(fd, words, sizeof words);
  ::close(fd);
  for (ssize_t i = 0; got > 0 && (i + 2) * 8 <= got; i += 2) {
    if (words[i] == AT_NULL) break;
    if (words[i] == AT_ENTRY) return words[i + 1];
  }
  return std::nullopt;
}

}  // namespace

std::optional<ProcessExecutable> OpenProcessExecutable(uint64_t pid) {
  if (pid == 0) return std::nullopt;
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::optional<uint64_t> entry = EntryPointOf(proc);
  if (!entry) return std::nullopt;
  auto image = ElfImage::Map(proc + "/exe");
  if (!image.ok()) return std::nullopt;
  const Elf64_Ehdr& header = image->header();
  if (header.e_type == ET_EXEC) {
    if (*entry != header.e_entry) return std::nullopt;  // not the file the process runs
    return ProcessExecutable{std::move(image).value(), 0};
  }
  if (header.e_type != ET_DYN) return std::nullopt;
  return ProcessExecutable{std::move(image).value(), *entry - header.e_entry};
}

}  // namespace pyunwind

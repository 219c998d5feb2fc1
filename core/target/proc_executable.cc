#include "core/target/proc_executable.h"

#include <elf.h>

#include <cstring>
#include <string>

#include "core/base/regular_file.h"

namespace pyunwind {
namespace {

// AT_ENTRY of /proc/PID/auxv: (type, value) pairs of 64-bit words up to AT_NULL.
std::optional<uint64_t> EntryPointOf(const std::string& proc) {
  const std::string auxv = ReadFileStart(proc + "/auxv", 4096);  // about 25 pairs
  for (size_t at = 0; at + 16 <= auxv.size(); at += 16) {
    uint64_t pair[2];
    std::memcpy(pair, auxv.data() + at, sizeof pair);
    if (pair[0] == AT_NULL) break;
    if (pair[0] == AT_ENTRY) return pair[1];
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

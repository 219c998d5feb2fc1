#include "lldb_plugin/traced_by.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/base/regular_file.h"

namespace pyunwind_lldb {

std::optional<uint64_t> ProcStatusNumber(uint64_t pid, std::string_view name) {
  const pyunwind::RegularFile file =
      pyunwind::RegularFile::Open("/proc/" + std::to_string(pid) + "/status");
  if (file.failure() != pyunwind::RegularFile::Failure::kNone) return std::nullopt;
  char text[4096];  // the file is about 1.5 KB; the fields read come in its first lines
  ssize_t size;
  do {
    size = read(file.fd(), text, sizeof text - 1);
  } while (size < 0 && errno == EINTR);
  if (size <= 0) return std::nullopt;
  text[size] = '\0';
  // Each field starts a line; the first line is "Name:", which a program chooses.
  const std::string key = "\n" + std::string(name) + ":";
  const char* at = std::strstr(text, key.c_str());
  if (at == nullptr) return std::nullopt;
  const char* digits = at + key.size();
  while (*digits == '\t' || *digits == ' ') ++digits;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(digits, &end, 10);
  if (end == digits || (*end != '\n' && *end != '\0')) return std::nullopt;
  return value;
}

bool TracedByChildOf(uint64_t pid, uint64_t debugger_pid, uint64_t threads) {
  const std::optional<uint64_t> tracer = ProcStatusNumber(pid, "TracerPid");
  if (!tracer || *tracer == 0) return false;
  if (ProcStatusNumber(*tracer, "PPid") != debugger_pid) return false;
  return ProcStatusNumber(pid, "Threads") == threads;
}

}  // namespace pyunwind_lldb

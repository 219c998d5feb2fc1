#include "lldb_plugin/traced_by.h"

#include <charconv>
#include <string>
#include <system_error>

#include "core/base/regular_file.h"

namespace pyunwind_lldb {

namespace {

// The text of /proc/PID/status (about 1.5 KB; the fields read come in its first lines), or
// empty if it cannot be read.
std::string ProcStatusText(uint64_t pid) {
  return pyunwind::ReadFileStart("/proc/" + std::to_string(pid) + "/status", 4096);
}

// The number after "NAME:" in the text of a status file.
std::optional<uint64_t> StatusField(std::string_view status, std::string_view name) {
  // Each field starts a line; the first line is "Name:", which a program chooses.
  const std::string key = "\n" + std::string(name) + ":";
  const size_t at = status.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t digits = at + key.size();
  while (digits < status.size() && (status[digits] == '\t' || status[digits] == ' ')) ++digits;
  uint64_t value = 0;
  const char* const first = status.data() + digits;
  const char* const last = status.data() + status.size();
  const auto [end, error] = std::from_chars(first, last, value);
  if (error != std::errc() || end == first || (end != last && *end != '\n')) return std::nullopt;
  return value;
}

}  // namespace

std::optional<uint64_t> ProcStatusNumber(uint64_t pid, std::string_view name) {
  return StatusField(ProcStatusText(pid), name);
}

bool TracedByChildOf(uint64_t pid, uint64_t debugger_pid, uint64_t threads) {
  const std::string status = ProcStatusText(pid);  // read once: both fields from one moment
  const std::optional<uint64_t> tracer = StatusField(status, "TracerPid");
  if (!tracer || *tracer == 0) return false;
  if (ProcStatusNumber(*tracer, "PPid") != debugger_pid) return false;
  return StatusField(status, "Threads") == threads;
}

}  // namespace pyunwind_lldb

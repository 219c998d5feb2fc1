#include "lldb_plugin/read_through_lldb.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include <lldb/API/SBDebugger.h>
#include <lldb/API/SBError.h>
#include <lldb/API/SBStringList.h>
#include <lldb/API/SBTarget.h>

#include "lldb_plugin/read_span.h"

namespace pyunwind_lldb {

uint64_t MemoryCacheLineSize(lldb::SBProcess& process) {
  constexpr uint64_t kDefault = 512;  // LLDB's default, 14 to 22
  lldb::SBDebugger debugger = process.GetTarget().GetDebugger();
  if (!debugger.IsValid()) return kDefault;
  lldb::SBStringList value = lldb::SBDebugger::GetInternalVariableValue(
      "target.process.memory-cache-line-size", debugger.GetInstanceName());
  if (!value.IsValid() || value.GetSize() == 0 || value.GetStringAtIndex(0) == nullptr) return kDefault;
  char* end = nullptr;
  const unsigned long long line = std::strtoull(value.GetStringAtIndex(0), &end, 0);
  if (end == value.GetStringAtIndex(0) || line == 0) return kDefault;
  // A line of more than 1 MiB is not believed: such reads are the pages around a MiB.
  return std::min<unsigned long long>(line, 1 << 20);
}

bool ReadThroughLldb(lldb::SBProcess& process, uint64_t address, void* out, size_t size,
                     uint64_t line_size) {
  const std::optional<ReadSpan> span = SpanAvoidingTheLineCache(address, size, line_size);
  if (!span) return false;
  lldb::SBError error;
  if (span->start == address && span->size == size) {
    const size_t read = process.ReadMemory(address, out, size, error);
    return error.Success() && read == size;
  }
  std::vector<uint8_t> pages(span->size);
  // A part is enough where it holds the bytes asked for (the pages after them may be unmapped).
  const size_t read = process.ReadMemory(span->start, pages.data(), pages.size(), error);
  const uint64_t offset = address - span->start;
  if (read > pages.size() || read < offset + size) return false;
  std::memcpy(out, pages.data() + offset, size);
  return true;
}

}  // namespace pyunwind_lldb

// py-heap's totals against the process's memory: the writable anonymous mappings (the malloc
// heap, mmap'd arenas and pools, thread stacks) as the debugger lists the target's memory
// regions (Target::MemoryRegions(): a live process's mappings, a core's PT_LOAD segments), and
// how much of it the census accounts for. A region counts when it is readable and writable and
// names no file ("[heap]" included; "[stack]", "[vvar]" and the like not). A core's segments
// are named from its NT_FILE note in every front-end (GDB itself; LLDB and pyunwind_core
// through ElfCoreTarget), so one core gives one figure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/target/target.h"

namespace pyunwind {

struct MemoryTotals {
  // The writable anonymous mappings' bytes; nullopt where the debugger lists no regions.
  std::optional<uint64_t> writable_anonymous_bytes;
  uint64_t regions = 0;  // how many of the listed regions were counted
  // Where no regions are listed: why (Target::WhyNoMemoryRegions(), or a generic reason).
  std::string why_unknown;
};

MemoryTotals WritableAnonymousMemory(Target& target);

// The census's share of the mappings, in percent (nullopt when they are unknown or empty).
std::optional<double> CensusShare(uint64_t census_bytes, const MemoryTotals& memory);

}  // namespace pyunwind

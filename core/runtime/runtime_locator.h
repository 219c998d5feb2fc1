// Finding _PyRuntime and the layout of the interpreter that owns it:
//   1. the debugger's symbol look-up;
//   2. a scan of the target's writable memory for the debug-offsets cookie
//      (3.13+) or for a runtime whose embedded main interpreter points back
//      at it (3.11, 3.12): this works on a core with no binary at all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/layout/layout.h"
#include "core/target/memory.h"
#include "core/base/result.h"

namespace pyunwind {

struct RuntimeLocation {
  uint64_t address = 0;
  Layout layout;
  std::string found_by;  // how it was found, for --verbose and JSON warnings
  std::vector<std::string> warnings;
};

// Fails with kNoRuntime ("not a Python process: ...") when the target has no
// runtime at all, as opposed to one it cannot read.
Result<RuntimeLocation> LocateRuntime(RemoteMemory& memory);

// The -v line: "_PyRuntime at 0x..., found by ...; layout from ...".
std::string DescribeLocation(const RuntimeLocation& location);

// Recognises a runtime at `address` (debug offsets or a version table) and
// returns its layout. `hexversion_hint` (0 if unknown) orders the tables.
Result<Layout> IdentifyRuntimeAt(RemoteMemory& memory, uint64_t address, uint32_t hexversion_hint);

// Scans `regions` for a runtime; returns its address and layout, or kNoRuntime
// when there is none (kInterrupted when the user stopped the scan).
Result<RuntimeLocation> ScanForRuntime(RemoteMemory& memory,
                                       const std::vector<MemoryRegion>& regions);

}  // namespace pyunwind

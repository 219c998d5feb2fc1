// A bounded scan of the target's writable memory, eight bytes at a time: how
// a core with no binary and no symbols still yields _PyRuntime (3.11+) and the
// _asyncio module's debug offsets (3.14+), which live in the data segments.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/target/memory.h"
#include "core/target/target.h"

namespace pyunwind {

// What a visitor says about one aligned word: keep going, or stop the scan.
enum class ScanStep { kContinue, kStop };

struct ScanOutcome {
  bool stopped = false;        // the visitor stopped it
  bool budget_reached = false; // `max_bytes` were scanned without a stop
  bool interrupted = false;    // the user stopped the command (Target::Interrupted)
  uint64_t bytes_scanned = 0;
};

// Calls `visit(address, word)` for every 8-byte-aligned word of the readable
// and writable regions, smallest region first (data segments of python and
// libpython are far smaller than the heap), reading at most `max_bytes`.
// Reads bypass the page cache.
ScanOutcome ScanWritableWords(RemoteMemory& memory, const std::vector<MemoryRegion>& regions,
                              uint64_t max_bytes,
                              const std::function<ScanStep(uint64_t address, uint64_t word)>& visit);

}  // namespace pyunwind

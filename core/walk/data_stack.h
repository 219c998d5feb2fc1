// A thread's data stack: the chunks where CPython 3.11+ keeps the frames of the functions a
// thread runs, newest first, each linked to the one before it.
#pragma once

#include <cstdint>

#include "core/layout/layout.h"
#include "core/target/memory.h"

namespace pyunwind {

// Reads the part of the data stack of the thread state at `tstate` that holds frames into
// the page cache, one target read per chunk, before the frame walk reads it frame by frame:
// the walk of a 1,500-frame stack then costs 13 reads instead of 47 (CPython's
// _remote_debugging copies the chunks whole, for the same reason). It only fills the cache,
// so what the walk finds does not depend on it; at most kMaxDataStackPrefetchBytes a thread,
// a deeper stack's older frames are read as the walk reaches them.
void PrefetchDataStack(RemoteMemory& memory, const Layout& layout, uint64_t tstate);

inline constexpr uint64_t kMaxDataStackPrefetchBytes = 1 << 20;

}  // namespace pyunwind

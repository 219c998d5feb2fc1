// Faulting in fresh memory a command is about to fill, with one system call.
//
// Memory a debugger touches for the first time costs a page fault per 4 KiB as it is
// written: 10-15 us each on this project's virtual machine, where one madvise call faults
// in 100 pages in 0.05-0.1 ms (bench/README.md). py-bt --all on 3,069 frames fills about
// 600 KB of fresh memory (the frames, the text); LLDB's heap has no room to spare for it.
#pragma once

#include <cstddef>

namespace pyunwind {

// Faults in, for writing, the whole pages inside [data, data + size) when they are at least
// kPrefaultMinBytes; pages already there stay as they are, and their contents always do.
// Only advice: it does nothing before Linux 5.14 (no MADV_POPULATE_WRITE).
inline constexpr size_t kPrefaultMinBytes = size_t{64} << 10;
void PrefaultForWrite(void* data, size_t size);

// Maps in the read-only pages (code, constants) of the loaded file that holds pyunwind, the
// plugin or the bridge. A debugger loads it well before the first command, which would
// otherwise fault them in one by one as it first runs each part. Only advice: it does
// nothing before Linux 5.14 (no MADV_POPULATE_READ). True when every such page was mapped.
bool PopulateOwnImage();

}  // namespace pyunwind

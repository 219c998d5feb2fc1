// Reading the debugged process through LLDB's SB API, around LLDB 14's memory cache bug
// (read_span.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include <lldb/API/SBProcess.h>

namespace pyunwind_lldb {

// Reads `size` bytes at `address` through SBProcess::ReadMemory, asking LLDB for more than one of
// its memory cache's lines (read_span.h: LLDB 14 writes before the buffer of a read of one line
// or less that the process answers in part). `line_size`: LLDB's, MemoryCacheLineSize.
bool ReadThroughLldb(lldb::SBProcess& process, uint64_t address, void* out, size_t size,
                     uint64_t line_size);
// `target.process.memory-cache-line-size` of the debugger of `process` (512 by default).
uint64_t MemoryCacheLineSize(lldb::SBProcess& process);

}  // namespace pyunwind_lldb

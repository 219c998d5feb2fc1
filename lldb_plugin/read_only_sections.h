// Bytes of a core's read-only file mappings, from the module files LLDB has loaded. A core
// (the kernel's, qemu-user's) holds no bytes of a read-only file-backed mapping: the
// executable's code and constants, such as the C strings a builtin's name points to. LLDB's
// reads there fail; GDB reads them from the executable's file (docs/support.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include <lldb/API/SBTarget.h>

namespace pyunwind_lldb {

// Reads `size` bytes at load address `address` from the file of the module section LLDB has
// loaded there, only where that section (its outermost segment) is readable and not writable
// (a writable one may have changed since the file was mapped) and its file holds all the
// bytes asked for, or the rest of them lie on the segment's last page (the file's next bytes,
// which that page maps). False where any of that does not hold.
bool ReadFromReadOnlySection(lldb::SBTarget& target, uint64_t address, void* out, size_t size);

}  // namespace pyunwind_lldb

// Addresses read from the target, before the core follows them.
#pragma once

#include <cstdint>

namespace pyunwind {

// A pointer worth following: not null, and 8-byte aligned as every CPython
// object and runtime struct is. Anything else read from the target is garbage.
inline bool Aligned(uint64_t address) { return address != 0 && address % 8 == 0; }

}  // namespace pyunwind

// Every bound the core puts on what it reads from the target, in one place.
// The target is untrusted: hitting a bound gives a visible truncation mark
// and a warning, never a hang.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pyunwind {

inline constexpr size_t kMaxInterpreters = 256;
inline constexpr size_t kMaxThreadsPerInterpreter = 4096;
inline constexpr size_t kMaxFramesPerThread = 65536;
inline constexpr size_t kMaxStringLength = 4096;         // characters kept of a name or file name
inline constexpr size_t kMaxLocationTableBytes = 1 << 20;
inline constexpr size_t kMaxCodeObjectsCached = 1 << 16;
inline constexpr uint64_t kMaxBytesReadPerCommand = 512ull << 20;
inline constexpr uint64_t kMaxBytesScannedForRuntime = 2ull << 30;

}  // namespace pyunwind

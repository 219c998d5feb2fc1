// The layout of a CPython 3.13+ target, read from the _Py_DebugOffsets block
// that opens its _PyRuntime: the cookie "xdebugpy", the version
// (PY_VERSION_HEX as a uint64), free_threaded (uint64), then nested structs
// of uint64 offsets and sizes. The block's own layout differs per minor
// version: that version's file (python313.cc ...) names its fields in order
// and adds the facts the block does not give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/layout/layout.h"
#include "core/base/result.h"

namespace pyunwind {

// The first 8 bytes of _PyRuntime in 3.13+ (no NUL in the target).
inline constexpr char kDebugOffsetsCookie[] = "xdebugpy";

// Bytes to read at _PyRuntime to hold the largest known block (3.15: a
// 24-byte header and 108 uint64 fields). Older blocks are shorter; the rest
// is ignored.
inline constexpr size_t kDebugOffsetsMaxSize = 888;

// Parses and validates a block read from the start of _PyRuntime. `size` may
// exceed the block (callers read kDebugOffsetsMaxSize bytes). A version newer
// than the newest known is read with the newest one's table, and the
// result's `warning` says so.
Result<Layout> LayoutFromDebugOffsets(const uint8_t* block, size_t size);

// True for a 3.x version past the newest known block layout.
bool DebugOffsetsVersionIsNewerThanKnown(uint32_t hexversion);

// The block's fields after the 24-byte header, in order ("thread_state.size",
// ...), for the minor version given (newer minors than the newest known get
// its list; those without a block an empty list). Exposed for tests.
const std::vector<std::string_view>& DebugOffsetsFieldNames(int minor);

}  // namespace pyunwind

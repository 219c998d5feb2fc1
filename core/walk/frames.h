// The chain of _PyInterpreterFrame of one thread, innermost first.
#pragma once

#include <cstdint>
#include <optional>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// Appends to `thread.frames` the Python frames from `innermost_frame`
// outwards. Frames owned by the C stack (entry shims) and frames still being
// set up are left out, as Python itself leaves them out of tracebacks
// (_PyFrame_IsIncomplete): an owner from Layout::Frame::owner_first_internal
// on, or a frame not owned by a generator whose instruction is before its
// code's _co_firsttraceable (this includes 3.13+'s _Py_InitCleanup shim).
// Stops at a cycle, a bad pointer or `max_frames`, marking the thread
// truncated with the reason.
void WalkFrames(ObjectReader& objects, CodeCache& codes, uint64_t innermost_frame,
                size_t max_frames, Thread& thread);

// Where one frame is: its code object and the line of its current
// instruction. For frames read one at a time (a suspended coroutine's), with
// no Frame and no copy of the names: a million tasks share the code objects.
struct FramePosition {
  uint64_t code_address = 0;
  const CodeInfo* code = nullptr;  // owned by the CodeCache
  std::optional<int> line;
  int64_t instruction_index = 0;
};
Result<FramePosition> ReadFramePosition(ObjectReader& objects, CodeCache& codes,
                                        uint64_t frame_address);

}  // namespace pyunwind

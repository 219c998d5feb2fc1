// The chain of _PyInterpreterFrame of one thread, innermost first.
#pragma once

#include <cstdint>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// Appends to `thread.frames` the Python frames from `innermost_frame`
// outwards. Frames owned by the C stack (entry shims) and frames still being
// set up are left out, as Python itself leaves them out of tracebacks.
// Stops at a cycle, a bad pointer or `max_frames`, marking the thread
// truncated with the reason.
void WalkFrames(ObjectReader& objects, CodeCache& codes, uint64_t innermost_frame,
                size_t max_frames, Thread& thread);

}  // namespace pyunwind

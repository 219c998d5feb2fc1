// What a frame is calling where that is not Python code: the callee of the
// call instruction the frame is at, read off its value stack. The frame does not store where
// its stack ends while the eval loop is inside a call (3.11: a stale stack top, 3.12 and
// 3.13: -1), so the depth comes from the bytecode (core/walk/stack_depth.h).
// The callee is shown as Python's repr() shows it (core/objects/callable_repr.h,
// CalleeRepr): `<built-in function len>`, `<method 'acquire' of '_thread.lock' objects>`, ...
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// Sets Frame::calling on the innermost Python frame of `thread` (from
// `first_frame` on) and on each frame whose inner frame a C call started.
// Anything unreadable, unknown or inconsistent leaves it null: never a guess.
void AddCalls(ObjectReader& objects, CodeCache& codes, size_t first_frame, Thread& thread);

}  // namespace pyunwind

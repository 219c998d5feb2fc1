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
#include <vector>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// Sets Frame::calling on the innermost Python frame of `thread` (from
// `first_frame` on) and on each frame whose inner frame a C call started.
// Anything unreadable, unknown or inconsistent leaves it null: never a guess.
void AddCalls(ObjectReader& objects, CodeCache& codes, size_t first_frame, Thread& thread);

// The operands of the call a frame is making: the callee and, for a method call, the self
// below its arguments (0 where there is none: a bound C method keeps its own, m_self). At
// BEFORE_WITH (3.11-3.13), which calls __enter__ from C, `callee` is 0 and `self` is what the
// stack's top slot holds: the context manager, or (3.11) its bound __exit__.
struct CallOperands {
  uint64_t callee = 0;
  uint64_t self = 0;
  bool entering_with = false;
};

// An error where the frame is at no call, or its stack cannot be read or trusted.
Result<CallOperands> CallOperandsOf(ObjectReader& objects, CodeCache& codes,
                                    uint64_t frame_address);

// The values on a frame's value stack below its current instruction (bottom first), as deep
// as the bytecode says the stack is there (core/walk/stack_depth.h): what `with` blocks keep
// there (the bound __exit__ of each context manager entered) included; at BEFORE_WITH,
// without the manager being entered.
Result<std::vector<uint64_t>> ValueStackOf(ObjectReader& objects, CodeCache& codes,
                                           uint64_t frame_address);

}  // namespace pyunwind

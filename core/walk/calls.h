// What a frame is calling where that is not Python code: the callee of the
// call instruction the frame is at, read off its value stack, named as GDB's
// libpython py-bt names C calls. The frame does not store where its stack
// ends while the eval loop is inside a call (3.11: a stale stack top, 3.12 and
// 3.13: -1), so the depth comes from the bytecode (core/walk/stack_depth.h).
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

// How a callee is shown, from its type (null for Python functions and
// methods: their frame is shown instead):
//   builtin_function_or_method: <built-in function NAME> (no self), else
//     <built-in method NAME of TYPE object> (TYPE: its self's type);
//   method_descriptor, classmethod_descriptor: <method 'NAME' of 'TYPE' objects>;
//   wrapper_descriptor: <slot wrapper 'NAME' of 'TYPE' objects>;
//   any other type: <TYPE object> (a class, a callable instance, ...).
Result<std::optional<std::string>> DescribeCallee(ObjectReader& objects, uint64_t callee);

}  // namespace pyunwind

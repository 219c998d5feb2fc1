// What a thread is doing, from its stacks: blocked in a known wait (idle) or
// not (running), and whether it is the one inside a garbage collection. The
// debugger's native stack decides where the host gives one; else only the
// innermost Python frame: the stdlib's own waits and the C calls that wait.
#pragma once

#include <vector>

#include "core/target/target.h"
#include "core/walk/model.h"

namespace pyunwind {

// Native frames ClassifyActivity looks at, innermost first.
inline constexpr size_t kActivityNativeFrames = 64;

// Sets thread.activity from `native` (the debugger's frames of the thread,
// innermost first; empty where the host cannot unwind) and its Python frames.
void ClassifyActivity(Thread& thread, const std::vector<NativeFrame>& native);

// Whether a native stack is inside a collection (gc_collect_main and the
// other entry points of Modules/gcmodule.c, Python/gc.c, Python/gc_free_threading.c).
bool InsideCollection(const std::vector<NativeFrame>& native);

// Given interp.gc_collecting and each thread's native stack (same order as
// interp.threads), status "gc" goes to the threads whose stack is inside a
// collection, and to no other; for a thread whose stack has no symbols the
// walk's guess (the GIL holder) is kept. Each "gc" thread gets a <GC> entry
// (FrameKind::kGc) as its innermost frame.
void MarkCollectingThreads(Interpreter& interp,
                           const std::vector<std::vector<NativeFrame>>& native_by_thread);

}  // namespace pyunwind

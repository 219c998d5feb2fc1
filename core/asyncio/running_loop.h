// The event loop a thread runs, read where the interpreter records it for
// asyncio.get_running_loop(): _PyThreadStateImpl.asyncio_running_loop (3.13:
// its file's fact; 3.14+: _AsyncioDebug), or the _asyncio module's entry in
// the thread's dict (3.11, 3.12; 3.11 wraps it in a _RunningLoopHolder).
// asyncio's pure-Python record (asyncio.events._running_loop, a
// threading.local) is read on 3.6 only, whose _asyncio keeps none; later it is
// used only when the _asyncio extension is missing.
#pragma once

#include <cstdint>

#include "core/asyncio/task_reader.h"
#include "core/base/result.h"

namespace pyunwind {

// The loop object, or 0 when the thread runs none.
Result<uint64_t> RunningLoopOf(TaskReader& reader, uint64_t tstate);

}  // namespace pyunwind

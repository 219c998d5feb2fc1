// Which thread runs which task: a task whose coroutine frame is on a
// thread's stack is running there; the others belong to the thread whose
// stack runs their event loop.
#pragma once

#include <vector>

#include "core/asyncio/asyncio.h"
#include "core/layout/layout.h"
#include "core/target/memory.h"

namespace pyunwind {

// Sets AsyncTask::running and thread_native_id from the thread walk.
void AssignTaskThreads(RemoteMemory& memory, const Layout& layout, const Snapshot& threads,
                       std::vector<AsyncTask>& tasks);

}  // namespace pyunwind

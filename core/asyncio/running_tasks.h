// Which thread runs which task: a task whose coroutine frame is on a
// thread's stack is running there; the others belong to the thread that
// records their event loop as its running loop (running_loop.h).
#pragma once

#include <vector>

#include "core/asyncio/asyncio.h"
#include "core/asyncio/task_reader.h"
#include "core/layout/layout.h"
#include "core/target/memory.h"

namespace pyunwind {

// Sets AsyncTask::running and thread_native_id from the thread walk. A
// running task's coroutine stack gets every Python frame running above its
// own on the thread's stack: the coroutines it has entered (executing, not
// suspended, so no await links them) and the functions they call.
// `loops` gets the loop each thread records as running.
void AssignTaskThreads(TaskReader& reader, const Snapshot& threads, std::vector<AsyncTask>& tasks,
                       std::vector<AsyncSnapshot::ThreadLoop>& loops);

}  // namespace pyunwind

// py-waits' report: what each thread and pending asyncio task waits for (thread_waits.h,
// task_waits.h) and the cycles of the waits-for graph over both (wait_graph.h).
#pragma once

#include "core/asyncio/asyncio.h"
#include "core/walk/code_objects.h"
#include "core/walk/model.h"
#include "core/waits/wait_model.h"

namespace pyunwind {

// The waits of every thread of `threads` (activity and calls already set), then of every
// pending task of `tasks` (null: asyncio not read), and their cycles.
// `loop_clock_now`: the loop clock's time now (time.monotonic() in the target), where it can
// be read; it tells each sleep how long is left.
WaitReport CollectWaits(ObjectReader& objects, CodeCache& codes, const Snapshot& threads,
                        const AsyncSnapshot* tasks, std::optional<double> loop_clock_now);

}  // namespace pyunwind

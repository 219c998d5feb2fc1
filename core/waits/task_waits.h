// What each pending asyncio task awaits: the future its step is parked on (fut_waiter), named
// by what it is: another task (whose task can release it), else by the innermost coroutine
// of the task's await chain (asyncio.sleep, Event.wait, Lock.acquire, Queue.get/put), else a
// plain future. An asyncio.Lock records no owner: the tasks whose `async with lock:` blocks
// hold it are found by the lock's bound __aexit__, which `async with` keeps on the coroutine
// frame's value stack until the block ends (3.11+).
#pragma once

#include <optional>
#include <vector>

#include "core/asyncio/asyncio.h"
#include "core/objects/values.h"
#include "core/walk/code_objects.h"
#include "core/waits/wait_model.h"

namespace pyunwind {

// One Wait per pending task of `tasks` that no thread is running, in address order.
// An asyncio.sleep's wait gets its timer (its frame's `delay` and TimerHandle `h`, whose `_when`
// is the deadline on the loop's clock), and how long is left where `loop_clock_now` is known.
// `values` reads locals and numbers (with the builtins of an interpreter, for a core without
// its executable).
std::vector<Wait> TaskWaits(ObjectReader& objects, ValueFormatter& values, CodeCache& codes,
                            const AsyncSnapshot& tasks, std::optional<double> loop_clock_now);

}  // namespace pyunwind

// A task parked on a future nothing else holds: no other task, thread, loop callback or handle
// can set it, so only cancelling the task ends the wait ("nothing can wake it": the
// `await loop.create_future()` whose future was handed to no one, the `await
// asyncio.Event().wait()` on an event no one else holds).
//
// Told from reference counts, never guessed: the future's callbacks are only the task's wakeup,
// and each of its strong references is accounted for inside the task (its fut_waiter, the fast
// locals, cells and value stacks of its suspended coroutine frames) or inside objects only the
// task holds, each found the same way (a FutureIter, an instance whose `_waiters`, `_getters`
// or `_putters` is a deque of futures: asyncio's Event, Lock, Condition, Semaphore, Queue).
// One reference unaccounted for (a TimerHandle's args, a global, a closure's cell) and it is
// not claimed. Whoever holds the task itself can still cancel it.
#pragma once

#include "core/asyncio/asyncio.h"
#include "core/objects/objects.h"

namespace pyunwind {

// False wherever any of it cannot be read, on free-threaded builds (split reference counts)
// and where the task's coroutine chain was cut.
bool NothingCanWake(ObjectReader& objects, const AsyncTask& task);

}  // namespace pyunwind

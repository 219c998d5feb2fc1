// What each thread of an interpreter is blocked on, from its frames: the stdlib's Python-level
// waits (Thread.join, Event.wait, Condition.wait, Semaphore.acquire, queue.Queue.get/put, by
// the outermost of the innermost threading.py / queue.py frames; concurrent.futures'
// Future.result, future_waits.h), else the C call the
// innermost frame is making (a Lock or RLock's acquire or __enter__, time.sleep, select,
// socket reads), else the GIL. An RLock names its owner thread; a join, the thread it joins;
// the GIL, its holder. 2.7's threading is Python over thread.lock: its _RLock.acquire,
// _Event.wait, ... are stdlib waits too (the _RLock's owner: its _RLock__owner ident).
#pragma once

#include <string>
#include <vector>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"
#include "core/waits/wait_model.h"

namespace pyunwind {

// One Wait per thread of `interp`, in its order. The threads' activity (ClassifyActivity) and
// innermost calls (Frame::calling) are set: a running thread waits for nothing; one whose
// activity is unknown (no symbols for its native stack) waits where its frames are at a wait;
// what cannot be read leaves waits_for null or its holder unknown.
std::vector<Wait> ThreadWaits(ObjectReader& objects, CodeCache& codes, const Interpreter& interp);

// The party a thread is in a Wait: its ident, and its threading name (else the OS's, else "").
WaitParty ThreadParty(const Thread& thread);

}  // namespace pyunwind

"""Threads and asyncio tasks parked in known waits, for py-waits (tests/e2e/waits_test.cc).

usage: python waits.py TRUTH_JSON          (the deadlocks)
       python waits_calm.py TRUTH_JSON     (the same module, nothing deadlocked)

Runs on CPython 2.7 and 3.6+ (2.7's threading is Python on top of thread.lock: its RLock,
Condition, Event and Semaphore are the classes _RLock, ... of threading.py, its queue module
Queue; each thread records its ident with thread.get_ident and its OS thread id itself,
legacy_truth.py). The tasks (waits_tasks.py) run from 3.8 on; 2.7 has no Barrier either.

deadlocks:
  worker-1   holds RLock R1 (`with`), then enters `with R2:`           } an RLock-order
  worker-2   holds RLock R2 (`with`), then calls R1.acquire()           } deadlock
  joiner     holds RLock R3, then joins joinee                          } a join on a thread
  joinee     calls R3.acquire()                                         } that waits for it
  lock-1     holds Lock L1 (`with`), then enters `with L2:`             } a Lock-order deadlock:
  lock-2     holds Lock L2 (`with`), then calls L1.acquire()            } the `with` blocks tell
  lock-waiter  calls PLAIN.acquire() on a threading.Lock the main thread took with acquire()
             (a plain Lock records no owner, and no `with` holds it: held by nobody known)
  loop       runs an event loop: task "a" awaits task "b", which awaits task "a" (an await
             cycle); task "lock-holder" holds an asyncio.Lock (`async with`) and awaits task
             "lock-waiter", which waits for that Lock; task "sleeper" is in asyncio.sleep;
             task "loop-main" in Event.wait on an Event only its frame holds; task
             "forgotten" awaits a future nothing else holds (nothing can wake either), task
             "giver" creates a future, hands it to task "taker", which awaits it, then waits
             like loop-main; task "kept" awaits a future a global holds (both wakeable)
  main       holds PLAIN, writes the truth, sleeps
calm: main sleeps; "busy" spins in Python; "sleeper" is in time.sleep; "event", "condition",
"semaphore", "barrier" (3.x), "queue-get" and "queue-put" wait in Event.wait, Condition.wait,
Semaphore.acquire, Barrier.wait, Queue.get (empty) and Queue.put (full), none ever released;
"loop" runs a loop whose tasks sleep or wait on an Event. No cycle.

Truth: {"scenario", "mode", "pid", "python", "threads": [{"native_id", "ident", "name",
"waits", "address", "held_by"}], "tasks": [{"id", "name", "waits", "held_by"}], "cycles"}:
"waits" is the kind py-waits must name (null: none), "address" id() of the object waited on
(hex, null where none), "held_by" the idents (tasks: ids, hex) of who holds it (null where the
target records nobody); "cycles" each deadlock as its parties in waiting order, starting from
the least (kind, id), threads before tasks. Task "sleeper" has "sleep": {"delay", "deadline"}
(its TimerHandle's _when, on the loop's clock). Each task but those awaiting a task has
"nothing_can_wake": whether nothing but the task holds the future it awaits.
"""
from __future__ import print_function

import sys
import threading
import time

if sys.version_info[0] == 2:
    import Queue as queue
    from legacy_truth import get_ident, gettid as native_thread_id, truth_of, write_truth
else:
    import queue
    from threading import get_ident
    from scenario_truth import native_thread_id, truth_of, write_truth

THREADS = {}  # name -> [ident, native_id, waits, address, held_by]
READY = threading.Semaphore(0)
# Tasks are named from 3.8 on (and asyncio.run is 3.7+): on 2.7, 3.6 and 3.7 no loop is run,
# the truth has no tasks, and its cycles are the threads' three.
WITH_TASKS = sys.version_info >= (3, 8)
if WITH_TASKS:
    import waits_tasks


def note(name, waits, address=None, held_by=None):
    THREADS[name] = [get_ident(), native_thread_id(), waits,
                     None if address is None else "%#x" % address, held_by]


def start_thread(target, args, name):
    thread = threading.Thread(target=target, args=args, name=name)
    thread.daemon = True  # 2.7's Thread takes no daemon= argument
    thread.start()
    return thread


class BothHeld(object):
    """Where the two halves of a lock-order deadlock meet once each holds its first lock
    (threading.Barrier(2), which 2.7 lacks)."""

    def __init__(self):
        self.arrived = [threading.Semaphore(0), threading.Semaphore(0)]

    def wait(self, half):
        self.arrived[half].release()
        self.arrived[1 - half].acquire()


def lock_order(kind, held, wanted, other, both_held, enters_with):
    """Half of a lock-order deadlock: holds `held` in a `with` block (which names the holder of
    a plain Lock), then waits for `wanted`, which thread `other` holds: entering `with wanted:`
    (enters_with, the first half) or in wanted.acquire()."""
    with held:
        both_held.wait(0 if enters_with else 1)
        note(threading.current_thread().name, kind, id(wanted), [other])
        READY.release()
        if enters_with:
            with wanted:  # parked
                pass
        else:
            wanted.acquire()  # parked


def joinee(r3):
    note("joinee", "rlock", id(r3), ["joiner"])
    READY.release()
    r3.acquire()  # parked


def joiner(r3):
    r3.acquire()
    other = start_thread(joinee, (r3,), "joinee")
    note("joiner", "join", id(other), ["joinee"])
    READY.release()
    other.join()  # parked


def lock_waiter(plain):
    note("lock-waiter", "lock", id(plain), None)
    READY.release()
    plain.acquire()  # parked


def run_loop(deadlocks):
    def parked():
        note("loop", "io")
        READY.release()
    waits_tasks.run_loop(deadlocks, parked)


def busy():
    note("busy", None)
    READY.release()
    while True:
        pass


def sleeper():
    note("sleeper", "sleep")
    READY.release()
    time.sleep(3600)  # parked


def stdlib_waiter(kind, obj, wait):
    def run():
        note(threading.current_thread().name, kind, id(obj))
        READY.release()
        wait()  # parked
    return run


def stdlib_waiters():
    condition, full = threading.Condition(), queue.Queue(1)
    full.put(None)

    def in_condition():
        with condition:
            condition.wait()
    waiters = [("event", threading.Event(), "wait", "event"),
               ("semaphore", threading.Semaphore(0), "acquire", "semaphore"),
               ("queue-get", queue.Queue(), "get", "queue_get")]
    if hasattr(threading, "Barrier"):  # 3.2+
        waiters.append(("barrier", threading.Barrier(2), "wait", "barrier"))
    starts = [(name, stdlib_waiter(kind, obj, getattr(obj, method)), ())
              for name, obj, method, kind in waiters]
    starts.append(("condition", stdlib_waiter("condition", condition, in_condition), ()))
    starts.append(("queue-put", stdlib_waiter("queue_put", full, lambda: full.put(None)), ()))
    return starts


def main(mode):
    deadlocks = mode == "deadlocks"
    threading.current_thread().name = "main"
    plain = threading.Lock()
    plain.acquire()
    starts = []
    if deadlocks:
        for kind, lock, (one, two) in (("rlock", threading.RLock, ("worker-1", "worker-2")),
                                       ("lock", threading.Lock, ("lock-1", "lock-2"))):
            first, second, both_held = lock(), lock(), BothHeld()
            starts += [(one, lock_order, (kind, first, second, two, both_held, True)),
                       (two, lock_order, (kind, second, first, one, both_held, False))]
        starts += [("joiner", joiner, (threading.RLock(),)), ("lock-waiter", lock_waiter, (plain,))]
    else:
        starts = [("busy", busy, ()), ("sleeper", sleeper, ())] + stdlib_waiters()
    if WITH_TASKS:
        starts.append(("loop", run_loop, (deadlocks,)))
    for name, target, args in starts:
        start_thread(target, args, name)
    for _ in range(len(starts) + (1 if deadlocks else 0)):  # the joinee too
        READY.acquire()
    time.sleep(0.5)  # each thread from its note() into the wait it is parked in
    note("main", "sleep")
    idents = dict((name, entry[0]) for name, entry in THREADS.items())
    threads = [{"name": name, "ident": ident, "native_id": native_id, "waits": waits,
                "address": address,
                "held_by": None if held_by is None else [idents[h] for h in held_by]}
               for name, (ident, native_id, waits, address, held_by) in THREADS.items()]
    cycles = []
    tasks = waits_tasks.TASKS if WITH_TASKS else {}
    if deadlocks:
        def party(kind, name):
            key = idents[name] if kind == "thread" else id(tasks[name])
            return {"kind": kind, "id": key if kind == "thread" else "%#x" % key, "name": name}
        parties = [("thread", ["worker-1", "worker-2"]), ("thread", ["lock-1", "lock-2"]),
                   ("thread", ["joiner", "joinee"])]
        if WITH_TASKS:
            parties += [("task", ["a", "b"]), ("task", ["lock-holder", "lock-waiter"])]
        for kind, names in parties:
            ids = [idents[n] if kind == "thread" else id(tasks[n]) for n in names]
            start = ids.index(min(ids))
            cycles.append([party(kind, n) for n in names[start:] + names[:start]])
    write_truth(sys.argv[1], truth_of("waits", threads, mode=mode,
                                      tasks=waits_tasks.task_truth() if WITH_TASKS else [],
                                      cycles=cycles))
    while True:
        time.sleep(3600)  # parked


if __name__ == "__main__":
    main("deadlocks")

"""Threads and asyncio tasks parked in known waits, for py-waits (tests/e2e/waits_test.cc).

usage: python waits.py TRUTH_JSON          (the deadlocks)
       python waits_calm.py TRUTH_JSON     (the same module, nothing deadlocked)

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
"semaphore", "barrier", "queue-get" and "queue-put" wait in Event.wait, Condition.wait,
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
import asyncio
import sys
import threading
import time

from scenario_truth import native_thread_id, truth_of, write_truth

THREADS = {}  # name -> [ident, native_id, waits, address, held_by]
TASKS = {}    # name -> task
READY = threading.Semaphore(0)
ALOCK = []  # the asyncio.Lock of the deadlocks' loop
KEPT = []  # the future task "kept" awaits, which anyone could set through this list
SLEEP_SECONDS = 3600  # task "sleeper"'s asyncio.sleep
# Tasks are named from 3.8 on (and asyncio.run is 3.7+): on 3.6 and 3.7 no loop is run, the
# truth has no tasks, and its cycles are the threads' three.
WITH_TASKS = sys.version_info >= (3, 8)


def note(name, waits, address=None, held_by=None):
    THREADS[name] = [threading.get_ident(), native_thread_id(), waits,
                     None if address is None else "%#x" % address, held_by]


def lock_order(kind, held, wanted, other, both_held, enters_with):
    """Half of a lock-order deadlock: holds `held` in a `with` block (which names the holder of
    a plain Lock), then waits for `wanted`, which thread `other` holds: entering `with wanted:`
    (enters_with) or in wanted.acquire()."""
    with held:
        both_held.wait()
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
    other = threading.Thread(target=joinee, args=(r3,), name="joinee", daemon=True)
    other.start()
    note("joiner", "join", id(other), ["joinee"])
    READY.release()
    other.join()  # parked


def lock_waiter(plain):
    note("lock-waiter", "lock", id(plain), None)
    READY.release()
    plain.acquire()  # parked


async def await_task(name):
    while name not in TASKS:
        await asyncio.sleep(0)
    await TASKS[name]


async def hold_lock(lock):
    async with lock:
        while "lock-waiter" not in TASKS:
            await asyncio.sleep(0)
        await TASKS["lock-waiter"]


async def wait_lock(lock):
    async with lock:
        pass


async def forgotten():
    await asyncio.get_running_loop().create_future()  # handed to no one


async def give():
    future = asyncio.get_running_loop().create_future()
    TASKS["taker"] = asyncio.get_running_loop().create_task(take(future), name="taker")
    await asyncio.Event().wait()  # holds `future`, which "taker" awaits


async def take(future):
    await future


async def keep():
    KEPT.append(asyncio.get_running_loop().create_future())
    await KEPT[0]


async def loop_main(deadlocks):
    loop = asyncio.get_running_loop()
    if deadlocks:
        TASKS["a"] = loop.create_task(await_task("b"), name="a")
        TASKS["b"] = loop.create_task(await_task("a"), name="b")
        ALOCK.append(asyncio.Lock())
        TASKS["lock-holder"] = loop.create_task(hold_lock(ALOCK[0]), name="lock-holder")
        await asyncio.sleep(0)  # the holder takes the lock
        TASKS["lock-waiter"] = loop.create_task(wait_lock(ALOCK[0]), name="lock-waiter")
        for name, coroutine in (("forgotten", forgotten), ("giver", give), ("kept", keep)):
            TASKS[name] = loop.create_task(coroutine(), name=name)
    TASKS["sleeper"] = loop.create_task(asyncio.sleep(SLEEP_SECONDS), name="sleeper")
    TASKS["loop-main"] = asyncio.current_task()
    TASKS["loop-main"].set_name("loop-main")
    for _ in range(5):
        await asyncio.sleep(0)
    note("loop", "io")
    READY.release()
    await asyncio.Event().wait()


def run_loop(deadlocks):
    asyncio.run(loop_main(deadlocks))


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
    import queue
    condition, full = threading.Condition(), queue.Queue(1)
    full.put(None)

    def in_condition():
        with condition:
            condition.wait()
    waiters = [("event", threading.Event(), "wait"), ("semaphore", threading.Semaphore(0), "acquire"),
               ("barrier", threading.Barrier(2), "wait"), ("queue-get", queue.Queue(), "get")]
    starts = [(name, stdlib_waiter(kind_of, obj, getattr(obj, method)), ())
              for (name, obj, method), kind_of in zip(waiters, ["event", "semaphore", "barrier", "queue_get"])]
    starts.append(("condition", stdlib_waiter("condition", condition, in_condition), ()))
    starts.append(("queue-put", stdlib_waiter("queue_put", full, lambda: full.put(None)), ()))
    return starts


def sleep_timer(task):
    """The delay and the deadline (loop time) of the asyncio.sleep `task` is parked in: the
    TimerHandle of the loop's schedule whose callback sets the task's future."""
    future = task._fut_waiter
    for handle in task.get_loop()._scheduled:
        if handle._args and handle._args[0] is future:
            return {"delay": SLEEP_SECONDS, "deadline": handle._when}
    raise AssertionError("no timer of the sleeper's future")


def task_truth(deadlocks):
    tasks = []
    unwakeable = {"loop-main", "forgotten", "giver"}
    for name, task in TASKS.items():
        if name in ("forgotten", "kept", "taker"):
            tasks.append({"id": "%#x" % id(task), "name": name, "waits": "future",
                          "address": "%#x" % id(task._fut_waiter), "held_by": None,
                          "nothing_can_wake": name in unwakeable})
            continue
        if name in ("a", "b"):
            other = "b" if name == "a" else "a"
            tasks.append({"id": "%#x" % id(task), "name": name, "waits": "task",
                          "held_by": ["%#x" % id(TASKS[other])]})
        elif name == "lock-holder":
            tasks.append({"id": "%#x" % id(task), "name": name, "waits": "task",
                          "held_by": ["%#x" % id(TASKS["lock-waiter"])]})
        elif name == "lock-waiter":
            tasks.append({"id": "%#x" % id(task), "name": name, "waits": "asyncio_lock",
                          "address": "%#x" % id(ALOCK[0]),
                          "held_by": ["%#x" % id(TASKS["lock-holder"])],
                          "nothing_can_wake": False})
        elif name == "sleeper":
            tasks.append({"id": "%#x" % id(task), "name": name, "waits": "asyncio_sleep",
                          "held_by": None, "sleep": sleep_timer(task), "nothing_can_wake": False})
        else:
            tasks.append({"id": "%#x" % id(task), "name": name, "waits": "asyncio_event",
                          "held_by": None, "nothing_can_wake": name in unwakeable})
    return tasks


def main(mode):
    deadlocks = mode == "deadlocks"
    threading.current_thread().name = "main"
    plain = threading.Lock()
    plain.acquire()
    starts = []
    if deadlocks:
        for kind, lock, (one, two) in (("rlock", threading.RLock, ("worker-1", "worker-2")),
                                       ("lock", threading.Lock, ("lock-1", "lock-2"))):
            first, second, both_held = lock(), lock(), threading.Barrier(2)
            starts += [(one, lock_order, (kind, first, second, two, both_held, True)),
                       (two, lock_order, (kind, second, first, one, both_held, False))]
        starts += [("joiner", joiner, (threading.RLock(),)), ("lock-waiter", lock_waiter, (plain,))]
    else:
        starts = [("busy", busy, ()), ("sleeper", sleeper, ())] + stdlib_waiters()
    if WITH_TASKS:
        starts.append(("loop", run_loop, (deadlocks,)))
    for name, target, args in starts:
        threading.Thread(target=target, args=args, name=name, daemon=True).start()
    for _ in range(len(starts) + (1 if deadlocks else 0)):  # the joinee too
        READY.acquire()
    time.sleep(0.5)  # each thread from its note() into the wait it is parked in
    note("main", "sleep")
    idents = {name: entry[0] for name, entry in THREADS.items()}
    threads = [{"name": name, "ident": ident, "native_id": native_id, "waits": waits,
                "address": address,
                "held_by": None if held_by is None else [idents[h] for h in held_by]}
               for name, (ident, native_id, waits, address, held_by) in THREADS.items()]
    cycles = []
    if deadlocks:
        def party(kind, name):
            key = idents[name] if kind == "thread" else id(TASKS[name])
            return {"kind": kind, "id": key if kind == "thread" else "%#x" % key, "name": name}
        parties = [("thread", ["worker-1", "worker-2"]), ("thread", ["lock-1", "lock-2"]),
                   ("thread", ["joiner", "joinee"])]
        if WITH_TASKS:
            parties += [("task", ["a", "b"]), ("task", ["lock-holder", "lock-waiter"])]
        for kind, names in parties:
            ids = [idents[n] if kind == "thread" else id(TASKS[n]) for n in names]
            start = ids.index(min(ids))
            cycles.append([party(kind, n) for n in names[start:] + names[:start]])
    write_truth(sys.argv[1], truth_of("waits", threads, mode=mode, tasks=task_truth(deadlocks),
                                      cycles=cycles))
    while True:
        time.sleep(3600)  # parked


if __name__ == "__main__":
    main("deadlocks")

"""asyncio edge cases for py-tasks, run by tests/e2e/asyncio_edges_test.cc.

usage: python asyncio_edges.py TRUTH_JSON

Two threads, each running its own event loop:
  loop-a  tasks a-sleeper (in asyncio.sleep), a-waiter (in Event.wait), a-done (finished,
          kept referenced in DONE so it stays in the task registry's weak set), and its
          main task a-main, which blocks the loop in a plain function, park (the running
          task: park's frame, above the task's coroutine, is the task's too).
          a-outer awaits gather(gather(a-g1, a-g2), gather(a-g3, a-g4)) (nested
          gathers: a-g1..a-g4 are awaited by a-outer), and a-deep is parked at the bottom
          of a chain of 1,501 `down` coroutines (deeper than py-tasks keeps: both ends
          kept, the gap marked); a-chain-0 awaits a-chain-1 ... awaits a-chain-39 (40
          tasks: deeper than py-tasks --tree draws); a-agen runs `async for` over an async
          generator that is itself awaiting (agen_nested -> Event.wait): the generator's frame
          is a link of a-agen's chain.
  loop-b  the same shape (b-sleeper, b-waiter, b-done, b-main), and on 3.12+ the loop's
          task factory is asyncio.eager_task_factory: b-eager starts eagerly, then
          suspends in Event.wait after its eager start (a pending eager task). b-main
          blocks its loop inside c2 -> c3 -> c4 -> c5 -> park: the running task has entered
          coroutines that await nothing yet, and park runs above them.
A third thread, not-a-loop, calls a plain function named run_forever, which calls one
named _run_once, each with loop-a's loop as its first argument, and parks there: a
reader that took loops from frames by those names would put loop-a's tasks on it.
The main thread writes the truth (atomically) and parks. Truth: {"pid", "python",
"main_thread_native_id", "running_loops": {native id: id(asyncio._get_running_loop())
or null, for each of the four threads, as each thread reads it}, "not_a_loop_native_id",
"tasks": [{"name", "thread_native_id", "loop", "state", "innermost", "stack", "awaited_by",
"eager", "running", "listed"}]} (loop: id() of the task's loop, as hex); state is "pending" or "finished" (pyunwind's words), stack the
qualnames of the task's coroutine chain innermost first (for a running
task every frame on its thread's stack above and in its coroutine, from sys._getframe(), as
CPython's get_async_stack_trace gives them; else following
cr_await from task.get_coro()), innermost its
first entry (null for a finished task: it has no frame), awaited_by the names of the
tasks that await it (by construction, and on 3.14+ also every task the task's own
_asyncio_awaited_by holds: gather() records the task that called it), listed whether the
interpreter still lists the task (3.14+ unlinks a task from its thread's task list when it
finishes, so no reader can find a finished task there).
"""
import asyncio
import inspect
import json
import os
import queue
import sys
import threading
import time

TRUTH = sys.argv[1]
EAGER = sys.version_info >= (3, 12)
DONE = []  # finished tasks, kept alive
REPORTS = queue.Queue()
PARK = threading.Event()  # never set
# Held for good: park blocks on it in C, so that no Python frame of the library runs above
# park's, and the frames of a running task are the ones the scenario records.
BLOCKED = threading.Lock()
BLOCKED.acquire()
LOOPS = {}  # prefix -> the loop of that thread
RUNNING_LOOPS = {}  # native thread id -> id(asyncio._get_running_loop()) there, or None


def note_running_loop():
    loop = asyncio._get_running_loop()
    RUNNING_LOOPS[str(threading.get_native_id())] = None if loop is None else "%#x" % id(loop)


async def sleeper():
    await asyncio.sleep(3600)


async def waiter(event):
    await event.wait()


async def finisher():
    return 42


DEEP = 1500  # down(DEEP) .. down(0): 1,501 coroutines, then Event.wait


async def down(n, event):
    if n == 0:
        await event.wait()
    else:
        await down(n - 1, event)


CHAIN = 40  # a-chain-0 awaits a-chain-1 ... awaits a-chain-39: deeper than py-tasks --tree draws


async def link(i, event):
    if i + 1 == CHAIN:
        await event.wait()
    else:
        loop = asyncio.get_running_loop()
        await loop.create_task(link(i + 1, event), name="a-chain-%d" % (i + 1))


async def gathering(*aws):
    await asyncio.gather(*aws)


def running_stack():
    """The coroutine frames of the running task on this thread, innermost first: from the
    caller outwards while a frame runs a coroutine's code."""
    out = []
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_flags & inspect.CO_COROUTINE:
        out.append(frame.f_code.co_qualname)
        frame = frame.f_back
    return out


async def c5(park):
    park(running_stack())


async def c4(park):
    await c5(park)


async def c3(park):
    await c4(park)


async def c2(park):
    await c3(park)


AGENS = {}  # task name -> the async generator its `async for` runs


async def agen_nested(event):
    await event.wait()


async def agen(event):
    for n in range(2):
        yield n
        if n == 1:
            await agen_nested(event)  # the generator awaits: the task's async for waits on it


async def agen_loop(name, event):
    AGENS[name] = generator = agen(event)
    async for _ in generator:
        pass


def awaited_link(task, awaitable):
    """(qualname, what it awaits) of a link of `task`'s chain, or None: a coroutine, or the
    asend object of `async for`, whose generator (known here by construction: no attribute
    names it) is the link."""
    if asyncio.iscoroutine(awaitable) and hasattr(awaitable, "cr_code"):
        return awaitable.cr_code.co_qualname, awaitable.cr_await
    if type(awaitable).__name__ == "async_generator_asend" and task.get_name() in AGENS:
        generator = AGENS[task.get_name()]
        return generator.ag_code.co_qualname, generator.ag_await
    return None


def innermost(task):
    if task.done():
        return None
    name, nxt = awaited_link(task, task.get_coro())
    while True:
        step = awaited_link(task, nxt)
        if step is None:
            return name
        name, nxt = step


def stack(task):
    """The task's coroutine chain, innermost first: its coroutine, then each link it awaits
    (awaited_link; task.get_stack() gives the outermost frame only)."""
    if task.done():
        return []
    out = []
    step = awaited_link(task, task.get_coro())
    while step is not None:
        out.append(step[0])
        step = awaited_link(task, step[1])
    out.reverse()
    return out


def state(task):
    if not task.done():
        return "pending"
    return "cancelled" if task.cancelled() else "finished"


def recorded_awaiters(task):
    """3.14+: the names of the tasks asyncio itself records as awaiting `task`."""
    return {a.get_name() for a in getattr(task, "_asyncio_awaited_by", None) or ()
            if isinstance(a, asyncio.Task)}


async def loop_main(prefix, eager):
    me = asyncio.current_task()
    me.set_name(prefix + "-main")
    loop = asyncio.get_running_loop()
    event = asyncio.Event()
    tasks = [
        loop.create_task(sleeper(), name=prefix + "-sleeper"),
        loop.create_task(waiter(event), name=prefix + "-waiter"),
    ]
    awaited_by = {}
    if prefix == "a":
        gathered = [loop.create_task(waiter(event), name="a-g%d" % i) for i in range(1, 5)]
        outer = loop.create_task(
            gathering(asyncio.gather(*gathered[:2]), asyncio.gather(*gathered[2:])),
            name="a-outer")
        tasks += gathered + [outer, loop.create_task(down(DEEP, event), name="a-deep")]
        for t in gathered:
            awaited_by[t.get_name()] = ["a-outer"]
        tasks.append(loop.create_task(link(0, event), name="a-chain-0"))
        tasks.append(loop.create_task(agen_loop("a-agen", event), name="a-agen"))
        for i in range(1, CHAIN):
            awaited_by["a-chain-%d" % i] = ["a-chain-%d" % (i - 1)]
    done = loop.create_task(finisher(), name=prefix + "-done")
    eager_names = set()
    if eager:
        loop.set_task_factory(asyncio.eager_task_factory)
        t = loop.create_task(waiter(event), name=prefix + "-eager")
        assert not t.done()
        tasks.append(t)
        eager_names.add(t.get_name())
        loop.set_task_factory(None)
    for _ in range(CHAIN + 5):
        await asyncio.sleep(0)
    assert done.done() and done.result() == 42
    if prefix == "a":  # the chain's tasks, created by each other
        tasks += sorted((t for t in asyncio.all_tasks() if t.get_name().startswith("a-chain-")
                         and t.get_name() != "a-chain-0"), key=lambda t: t.get_name())
    DONE.append(done)
    tid = threading.get_native_id()
    LOOPS[prefix] = loop
    note_running_loop()

    def park(my_stack):
        rows = []
        for t in [me] + tasks + [done]:
            s = [sys._getframe().f_code.co_qualname] + my_stack if t is me else stack(t)
            rows.append({
                "name": t.get_name(),
                "thread_native_id": tid,
                "loop": "%#x" % id(t.get_loop()),
                "state": state(t),
                "innermost": s[0] if s else None,
                "stack": s,
                "awaited_by": sorted(set(awaited_by.get(t.get_name(), [])) | recorded_awaiters(t)),
                "listed": not (t.done() and sys.version_info >= (3, 14)),
                "eager": t.get_name() in eager_names,
                "running": t is me,
            })
            assert t is me or (s[0] if s else None) == innermost(t)
        REPORTS.put(rows)
        BLOCKED.acquire()  # blocks this loop inside the a-main / b-main task step

    if prefix == "b":
        await c2(park)  # the running task inside c2 -> c3 -> c4 -> c5
    else:
        park(running_stack_here())


def running_stack_here():
    return [sys._getframe(1).f_code.co_qualname]


def run_loop(prefix, eager):
    asyncio.run(loop_main(prefix, eager))


def _run_once(loop):
    note_running_loop()
    REPORTS.put([])
    PARK.wait()  # parked in a frame named _run_once whose first local is loop-a's loop


def run_forever(loop):
    _run_once(loop)


def not_a_loop():
    run_forever(LOOPS["a"])


def main():
    sys.setrecursionlimit(10000)  # a-deep's chain starts 1,501 coroutines deep
    threads = [
        threading.Thread(target=run_loop, args=("a", False), name="loop-a", daemon=True),
        threading.Thread(target=run_loop, args=("b", EAGER), name="loop-b", daemon=True),
    ]
    for t in threads:
        t.start()
    rows = []
    for _ in threads:
        rows.extend(REPORTS.get(timeout=60))
    decoy = threading.Thread(target=not_a_loop, name="not-a-loop", daemon=True)
    decoy.start()
    rows.extend(REPORTS.get(timeout=60))
    note_running_loop()
    truth = {
        "pid": os.getpid(),
        "python": {"version": "%d.%d.%d" % sys.version_info[:3], "hexversion": sys.hexversion},
        "main_thread_native_id": threading.get_native_id(),
        "not_a_loop_native_id": decoy.native_id,
        "running_loops": RUNNING_LOOPS,
        "tasks": rows,
    }
    tmp = TRUTH + ".tmp"
    with open(tmp, "w") as f:
        json.dump(truth, f, indent=1)
    os.rename(tmp, TRUTH)
    while True:
        time.sleep(3600)


main()

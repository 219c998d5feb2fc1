"""asyncio edge cases for py-tasks (issue 4), run by tests/e2e/asyncio_edges_test.cc.

usage: python asyncio_edges.py TRUTH_JSON

Two threads, each running its own event loop:
  loop-a  tasks a-sleeper (in asyncio.sleep), a-waiter (in Event.wait), a-done (finished,
          kept referenced in DONE so it stays in the task registry's weak set), and its
          main task a-main, which blocks the loop synchronously (the running task).
  loop-b  the same shape (b-sleeper, b-waiter, b-done, b-main), and on 3.12+ the loop's
          task factory is asyncio.eager_task_factory: b-eager starts eagerly, then
          suspends in Event.wait after its eager start (a pending eager task).
The main thread writes the truth (atomically) and parks. Truth: {"pid", "python",
"tasks": [{"name", "thread_native_id", "state", "innermost", "eager", "running"}]}; state
is "pending" or "finished" (pyunwind's words), innermost the qualname of the innermost
coroutine of the task's await chain (null for a finished task: it has no frame).
"""
import asyncio
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


async def sleeper():
    await asyncio.sleep(3600)


async def waiter(event):
    await event.wait()


async def finisher():
    return 42


def innermost(task):
    if task.done():
        return None
    coro = task.get_coro()
    while True:
        nxt = getattr(coro, "cr_await", None)
        if not asyncio.iscoroutine(nxt) or not hasattr(nxt, "cr_code"):
            return coro.cr_code.co_qualname
        coro = nxt


def state(task):
    if not task.done():
        return "pending"
    return "cancelled" if task.cancelled() else "finished"


async def loop_main(prefix, eager):
    me = asyncio.current_task()
    me.set_name(prefix + "-main")
    loop = asyncio.get_running_loop()
    event = asyncio.Event()
    tasks = [
        loop.create_task(sleeper(), name=prefix + "-sleeper"),
        loop.create_task(waiter(event), name=prefix + "-waiter"),
    ]
    done = loop.create_task(finisher(), name=prefix + "-done")
    eager_names = set()
    if eager:
        loop.set_task_factory(asyncio.eager_task_factory)
        t = loop.create_task(waiter(event), name=prefix + "-eager")
        assert not t.done()
        tasks.append(t)
        eager_names.add(t.get_name())
        loop.set_task_factory(None)
    for _ in range(5):
        await asyncio.sleep(0)
    assert done.done() and done.result() == 42
    DONE.append(done)
    tid = threading.get_native_id()
    rows = []
    for t in [me] + tasks + [done]:
        rows.append({
            "name": t.get_name(),
            "thread_native_id": tid,
            "state": state(t),
            "innermost": "loop_main" if t is me else innermost(t),
            "eager": t.get_name() in eager_names,
            "running": t is me,
        })
    REPORTS.put(rows)
    PARK.wait()  # blocks this loop inside the a-main / b-main task step


def run_loop(prefix, eager):
    asyncio.run(loop_main(prefix, eager))


def main():
    threads = [
        threading.Thread(target=run_loop, args=("a", False), name="loop-a", daemon=True),
        threading.Thread(target=run_loop, args=("b", EAGER), name="loop-b", daemon=True),
    ]
    for t in threads:
        t.start()
    rows = []
    for _ in threads:
        rows.extend(REPORTS.get(timeout=60))
    truth = {
        "pid": os.getpid(),
        "python": {"version": "%d.%d.%d" % sys.version_info[:3]},
        "main_thread_native_id": threading.get_native_id(),
        "tasks": rows,
    }
    tmp = TRUTH + ".tmp"
    with open(tmp, "w") as f:
        json.dump(truth, f, indent=1)
    os.rename(tmp, TRUTH)
    while True:
        time.sleep(3600)


main()

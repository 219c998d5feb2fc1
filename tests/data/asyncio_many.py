"""Many asyncio tasks, for py-tasks at production scale.

usage: python asyncio_many.py N TRUTH_JSON

One event loop on the main thread: N tasks named w-0 ... w-(N-1), each parked in
`mid -> leaf -> Event.wait` (the shape the issue measured), plus the main task
`main`, which blocks the loop synchronously once every task is parked (the
running task). The truth, written atomically once the tasks are parked, is what
the process reports from inside: {"pid", "python", "count", "names" (every
task's name but main's, from asyncio.all_tasks()), "groups": [{"count",
"state", "stack"}]} with each task's coroutine chain (qualnames, outermost first, following
cr_await from task.get_coro()) grouped as py-tasks --summary groups them.
"""
import asyncio
import collections
import json
import os
import sys
import time

N = int(sys.argv[1])
TRUTH = sys.argv[2]


async def leaf(event):
    await event.wait()


async def mid(event):
    await leaf(event)


def stack_of(task):
    """The task's coroutine chain, outermost first: its coroutine, then each cr_await that is
    a coroutine (task.get_stack() gives the outermost frame only)."""
    out = []
    coro = task.get_coro()
    while asyncio.iscoroutine(coro) and hasattr(coro, "cr_code"):
        out.append(coro.cr_code.co_qualname)
        coro = coro.cr_await
    return out


async def main():
    event = asyncio.Event()
    tasks = [asyncio.create_task(mid(event), name="w-%d" % i) for i in range(N)]
    await asyncio.sleep(0)
    await asyncio.sleep(0)  # every task reaches Event.wait
    me = asyncio.current_task()
    me.set_name("main")
    groups = collections.Counter()
    names = []
    for task in asyncio.all_tasks():
        if task is me:
            continue
        names.append(task.get_name())
        groups[("pending", tuple(stack_of(task)))] += 1
    # This task, once it blocks the loop below: running, inside this frame only.
    groups[("running", (sys._getframe().f_code.co_qualname,))] += 1
    truth = {
        "pid": os.getpid(),
        "python": {"version": "%d.%d.%d" % sys.version_info[:3]},
        "count": len(names),
        "names": sorted(names),
        "groups": [{"count": c, "state": s, "stack": list(st)} for (s, st), c in groups.items()],
    }
    tmp = TRUTH + ".tmp"
    with open(tmp, "w") as f:
        json.dump(truth, f)
    os.rename(tmp, TRUTH)
    while True:  # the loop stays inside this task: it is the running task
        time.sleep(3600)
    del tasks


asyncio.run(main())

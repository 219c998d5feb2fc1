"""An event loop parked with a known graph of tasks, for `py-tasks` against the truth.

usage: python asyncio_tree.py TRUTH_JSON

The main thread runs asyncio.run(supervise()); Task-1's TaskGroup holds:
  poller-1, poller-2   poll() -> retry() -> backoff() -> asyncio.sleep
  fan-out              asyncio.gather of part-a and part-b (each waits on an asyncio.Event)
  joiner               awaits the fan-out task itself
  drain                waits on an empty asyncio.Queue
  (unnamed)            "Task-N", waits on a future nobody completes
  reporter             describes every task, then blocks the whole loop with a synchronous
                       sleep: the running task, through which the loop thread's stack runs
The recorder thread writes the truth once the reporter blocks.

Truth: scenario_truth.truth_of() (threads: "loop", the main thread, and "recorder") with
"tasks" (each: "name", "coroutine_stack" innermost first, "awaited_by" [{"name", "kind"}],
kind "taskgroup", "gather" or "await") and "running_task": "reporter".
"""
import asyncio
import sys
import threading

from scenario_truth import Roll, frame_entry, line_marked, sleep_forever, truth_of, write_truth

roll = Roll(expected=1)
loop_blocked = threading.Event()


async def backoff():
    await asyncio.sleep(3600)


async def retry():
    await backoff()


async def poll():
    await retry()


async def part(event):
    await event.wait()


async def fan_out(event):
    first = asyncio.create_task(part(event), name="part-a")
    second = asyncio.create_task(part(event), name="part-b")
    await asyncio.gather(first, second)


async def join(task):
    await task


async def drain(queue):
    await queue.get()


async def never():
    await asyncio.get_running_loop().create_future()


def coroutine_stack(coroutine):
    """Innermost first: the coroutine, then what it awaits, while that is a coroutine."""
    frames = []
    while getattr(coroutine, "cr_frame", None) is not None:
        frames.append(frame_entry(coroutine.cr_code, coroutine.cr_frame.f_lineno))
        coroutine = coroutine.cr_await
    return frames[::-1]


async def report(awaited_by):
    await asyncio.sleep(0.3)  # every other task reaches its await
    me = asyncio.current_task()
    tasks = []
    for task in asyncio.all_tasks():
        if task is not me:
            tasks.append({"name": task.get_name(),
                          "coroutine_stack": coroutine_stack(task.get_coro()),
                          "awaited_by": awaited_by.get(task.get_name(), [])})
    here = sys._getframe().f_code
    tasks.append({"name": me.get_name(),
                  "coroutine_stack": [frame_entry(here, line_marked(here, "the loop blocks"))],
                  "awaited_by": awaited_by[me.get_name()]})
    report.tasks = sorted(tasks, key=lambda t: t["name"])
    roll.here("loop")
    loop_blocked.set()
    sleep_forever()  # the loop blocks


async def supervise():
    parent = asyncio.current_task().get_name()
    awaited_by = {}

    def edge(child, by, kind):
        awaited_by.setdefault(child, []).append({"name": by, "kind": kind})

    event = asyncio.Event()
    async with asyncio.TaskGroup() as group:
        for name in ("poller-1", "poller-2"):
            group.create_task(poll(), name=name)
        fan = group.create_task(fan_out(event), name="fan-out")
        group.create_task(join(fan), name="joiner")
        group.create_task(drain(asyncio.Queue()), name="drain")
        unnamed = group.create_task(never())
        for name in ("poller-1", "poller-2", "fan-out", "joiner", "drain", unnamed.get_name(),
                     "reporter"):
            edge(name, parent, "taskgroup")
        edge("part-a", "fan-out", "gather")
        edge("part-b", "fan-out", "gather")
        edge("fan-out", "joiner", "await")
        group.create_task(report(awaited_by), name="reporter")


def record(truth_path):
    loop_blocked.wait()
    others = roll.threads(leave_out={threading.get_ident()})
    me = roll.my_row("recorder", "recorder parks")
    write_truth(truth_path, truth_of("asyncio_tree", others + [me], tasks=report.tasks,
                                     running_task="reporter"))
    sleep_forever()  # recorder parks


if __name__ == "__main__":
    threading.Thread(target=record, args=(sys.argv[1],), name="recorder", daemon=True).start()
    asyncio.run(supervise())

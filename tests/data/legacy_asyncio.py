"""asyncio_tree.py for CPython 3.6+: an event loop parked with a known graph of tasks, for
`py-tasks --json` against the truth (tests/e2e/older_versions_test.cc).

usage: python legacy_asyncio.py TRUTH_JSON

Only what 3.6 has: no asyncio.run, create_task(name=), TaskGroup, current_task() or
all_tasks() at module level (3.6 has them on Task). The main thread runs
loop.run_until_complete(supervise()); the supervisor gathers:
  sleeper    nap() -> doze() -> asyncio.sleep
  fan-out    asyncio.gather of part-a (wait_a) and part-b (wait_b), both awaiting a future
             nobody completes
  joiner     join(): awaits the fan-out task itself
  reporter   describes every task, then blocks the whole loop with a synchronous sleep: the
             running task, through which the loop thread's stack runs
The recorder thread writes the truth once the reporter blocks.

Task names are 3.8+; before, a task has none (null in the truth), so each task runs its own
coroutine function and the truth names it by that function too: its "label" (the co_name of
its outermost coroutine frame), which a reader of the tasks can tell on every version.

Truth: legacy_truth.truth_of() (threads: "loop", the main thread, and "recorder") with
"tasks" (each: "name" or null, "label", "coroutine_stack" innermost first, "awaited_by"
[{"name", "label", "kind"}], kind "gather" or "await"), "running_task" (the reporter's
name, or null) and "running_label": "report".
A coroutine stack follows what each coroutine awaits while that has a frame: a coroutine
(cr_await) or, as 3.6's generator-based asyncio.sleep is, a generator (gi_yieldfrom).
"""
import asyncio
import sys
import threading

from legacy_truth import Roll, frame_entry, line_marked, sleep_forever, start_thread, truth_of
from legacy_truth import write_truth

roll = Roll(expected=1)
loop_blocked = threading.Event()
HAS_NAMES = sys.version_info >= (3, 8)


def current_task():
    return (getattr(asyncio, "current_task", None) or asyncio.Task.current_task)()  # 3.6


def all_tasks():
    return (getattr(asyncio, "all_tasks", None) or asyncio.Task.all_tasks)()  # 3.6


def spawn(coroutine, name):
    task = asyncio.get_event_loop().create_task(coroutine)
    if HAS_NAMES:
        task.set_name(name)
    return task


def coro_of(task):
    return task.get_coro() if hasattr(task, "get_coro") else task._coro  # get_coro: 3.8+


def coroutine_stack(awaitable):
    """Innermost first: the coroutine, then what it awaits, while that has a frame."""
    frames = []
    while True:
        frame = getattr(awaitable, "cr_frame", None) or getattr(awaitable, "gi_frame", None)
        if frame is None:
            return frames[::-1]
        frames.append(frame_entry(frame.f_code, frame.f_lineno))
        if hasattr(awaitable, "cr_await"):
            awaitable = awaitable.cr_await
        else:
            awaitable = getattr(awaitable, "gi_yieldfrom", None)


def describe(task, stack, awaited_by):
    label = coro_of(task).cr_code.co_name
    return {"name": task.get_name() if HAS_NAMES else None, "label": label,
            "coroutine_stack": stack, "awaited_by": awaited_by.get(label, [])}


async def doze():
    await asyncio.sleep(3600)


async def nap():
    await doze()


async def wait_a(future):
    await future


async def wait_b(future):
    await future


async def fan_out(future):
    first = spawn(wait_a(future), "part-a")
    second = spawn(wait_b(future), "part-b")
    await asyncio.gather(first, second)


async def join(task):
    await task


async def report(awaited_by):
    await asyncio.sleep(0.3)  # every other task reaches its await
    me = current_task()
    tasks = [describe(task, coroutine_stack(coro_of(task)), awaited_by)
             for task in all_tasks() if task is not me]
    here = sys._getframe().f_code
    tasks.append(describe(me, [frame_entry(here, line_marked(here, "the loop blocks"))],
                          awaited_by))
    report.tasks = sorted(tasks, key=lambda t: t["label"])
    report.name = me.get_name() if HAS_NAMES else None
    roll.here("loop")
    loop_blocked.set()
    sleep_forever()  # the loop blocks


async def supervise():
    if HAS_NAMES:
        current_task().set_name("supervisor")
    awaited_by = {}  # label -> [{"name", "label", "kind"}]

    def edge(child, by, by_name, kind):
        awaited_by.setdefault(child, []).append(
            {"name": by_name if HAS_NAMES else None, "label": by, "kind": kind})

    future = asyncio.get_event_loop().create_future()
    for label in ("nap", "fan_out", "join", "report"):
        edge(label, "supervise", "supervisor", "gather")
    edge("wait_a", "fan_out", "fan-out", "gather")
    edge("wait_b", "fan_out", "fan-out", "gather")
    edge("fan_out", "join", "joiner", "await")
    sleeper = spawn(nap(), "sleeper")
    fan = spawn(fan_out(future), "fan-out")
    joiner = spawn(join(fan), "joiner")
    reporter = spawn(report(awaited_by), "reporter")
    await asyncio.gather(sleeper, fan, joiner, reporter)


def record(truth_path):
    loop_blocked.wait()
    others = roll.threads(leave_out={threading.current_thread().ident})
    me = roll.my_row("recorder", "recorder parks")
    write_truth(truth_path, truth_of("legacy_asyncio", others + [me], tasks=report.tasks,
                                     running_task=report.name, running_label="report"))
    sleep_forever()  # recorder parks


if __name__ == "__main__":
    start_thread(record, (sys.argv[1],), name="recorder")
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.run_until_complete(supervise())

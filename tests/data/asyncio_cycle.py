"""Await cycles, for `py-tasks --tree` and `py-tasks --json` ("await_cycles").

usage: python asyncio_cycle.py TRUTH_JSON

One event loop, on the main thread. Tasks (each parks for good):
  a, b      a awaits b, b awaits a: a cycle of two
  c, d, e   c awaits d, d awaits e, e awaits c: a cycle of three
  f         awaits a: hangs on a cycle, is not in one
  g         awaits h, which sleeps: no cycle
  main      the loop's main task, asleep once the truth is written

Truth: scenario_truth.truth_of() (no threads listed), "tasks": {name: {"id", "awaits"}} (the
task it awaits, from Task._fut_waiter, or null) and "cycles": the cycles of that graph, each
the names in await order, starting from its least name.
"""
import asyncio
import sys

from scenario_truth import truth_of, write_truth

TASKS = {}


async def awaits(name):
    while name not in TASKS:
        await asyncio.sleep(0)
    await TASKS[name]


def cycles_of(awaits_of):
    """Each cycle once: follow each task's one awaited task until a task repeats."""
    found = set()
    for start in awaits_of:
        path, task = [], start
        while task is not None and task not in path:
            path.append(task)
            task = awaits_of[task]
        if task is not None:
            cycle = path[path.index(task):]
            least = cycle.index(min(cycle))
            found.add(tuple(cycle[least:] + cycle[:least]))
    return sorted(list(cycle) for cycle in found)


async def main(truth_path):
    asyncio.current_task().set_name("main")
    loop = asyncio.get_running_loop()
    shape = {"a": "b", "b": "a", "c": "d", "d": "e", "e": "c", "f": "a", "g": "h"}
    for name, awaited in shape.items():
        TASKS[name] = loop.create_task(awaits(awaited), name=name)
    TASKS["h"] = loop.create_task(asyncio.sleep(3600), name="h")
    for _ in range(10):
        await asyncio.sleep(0)
    by_task = {task: name for name, task in TASKS.items()}
    awaits_of = {name: by_task.get(task._fut_waiter) for name, task in TASKS.items()}
    assert {k: v for k, v in awaits_of.items() if v} == shape, awaits_of
    tasks = {name: {"id": "%#x" % id(task), "awaits": awaits_of[name]}
             for name, task in TASKS.items()}
    write_truth(truth_path, truth_of("asyncio_cycle", [], tasks=tasks,
                                     cycles=cycles_of(awaits_of)))
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

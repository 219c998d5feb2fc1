"""What CPython's own remote reader says of a live process's asyncio tasks.

usage: python3.14+ remote_debugging_view.py PID OUT_JSON (tests/e2e/remote_debugging_test.cc)

Writes {"python": sys.version, "tasks": [{"id", "name", "stack", "awaited_by"}],
"running": [{"thread_id", "id", "name", "stack"}]}: for each task that
_remote_debugging.RemoteUnwinder(PID, all_threads=True).get_all_awaited_by() lists, its
address (hex), name, coroutine chain (each frame's function name, innermost first) and the
addresses of the tasks that await it; for each thread's running task,
get_async_stack_trace()'s frames, innermost first.
"""
import json
import sys

import _remote_debugging


def names(call_stack):
    return [frame.funcname for frame in call_stack]


def main():
    pid, out = int(sys.argv[1]), sys.argv[2]
    unwinder = _remote_debugging.RemoteUnwinder(pid, all_threads=True)
    tasks = []
    for thread in unwinder.get_all_awaited_by():
        for task in thread.awaited_by:
            stack = [name for coro in task.coroutine_stack for name in names(coro.call_stack)]
            tasks.append({"id": hex(task.task_id), "name": task.task_name, "stack": stack,
                          "awaited_by": [hex(coro.task_name) for coro in task.awaited_by]})
    running = []
    for thread in unwinder.get_async_stack_trace():
        for task in thread.awaited_by[:1]:
            stack = [name for coro in task.coroutine_stack for name in names(coro.call_stack)]
            running.append({"thread_id": thread.thread_id, "id": hex(task.task_id),
                            "name": task.task_name, "stack": stack})
    with open(out, "w") as f:
        json.dump({"python": sys.version, "tasks": tasks, "running": running}, f, indent=1)


if __name__ == "__main__":
    main()

"""The asyncio half of tests/data/waits.py (Python 3.8+; see there): the tasks of the loop
thread "loop" and their truth. Kept apart because 2.7 cannot even parse `async def`."""
import asyncio

TASKS = {}  # name -> task
ALOCK = []  # the asyncio.Lock of the deadlocks' loop
KEPT = []  # the future task "kept" awaits, which anyone could set through this list
SLEEP_SECONDS = 3600  # task "sleeper"'s asyncio.sleep


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


async def loop_main(deadlocks, parked):
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
    parked()
    await asyncio.Event().wait()


def run_loop(deadlocks, parked):
    """Runs the loop for ever; parked() is called once its tasks are where they wait."""
    asyncio.run(loop_main(deadlocks, parked))


def sleep_timer(task):
    """The delay and the deadline (loop time) of the asyncio.sleep `task` is parked in: the
    TimerHandle of the loop's schedule whose callback sets the task's future."""
    future = task._fut_waiter
    for handle in task.get_loop()._scheduled:
        if handle._args and handle._args[0] is future:
            return {"delay": SLEEP_SECONDS, "deadline": handle._when}
    raise AssertionError("no timer of the sleeper's future")


def task_truth():
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

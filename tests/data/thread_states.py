"""Threads parked in the states py-bt's thread header describes: names, idle or
running, the exception being handled, and the one thread inside a garbage collection.

usage: python thread_states.py TRUTH_JSON

Threads (role: what it does, parked):
  main        the main thread: writes the truth, then sleeps (idle)
  busy        a busy loop (running; the thread that holds the GIL)
  lock        Lock.acquire() on a lock the main thread holds (idle)
  sleep       time.sleep (idle)
  select      select.select on a pipe nobody writes (idle)
  recv        socket.recv on a socketpair nobody writes (idle)
  event       threading.Event().wait() (idle)
  exc_value   inside `except` with ValueError("bad value 42"), sleeping
  exc_key     inside `except` with KeyError("missing-key"), sleeping
  exc_custom  inside `except` with AppError("custom: ünï ✓", 7) (two args), sleeping
  exc_os      inside `except` with FileNotFoundError(2, "No such file"): a type with its own
              __str__ ("[Errno 2] No such file"), whose message pyunwind leaves out
  exc_nested  inside an `except KeyError` that is inside an `except ValueError`: the innermost
              (KeyError) is the one sys.exc_info() gives
  gc          gc.collect() -> __del__ of a cyclic object -> time.sleep: a collection that
              never ends (idle, and the only thread inside a collection)
  dummy       a _thread thread that called threading.current_thread(): a _DummyThread
  raw         a _thread thread threading never saw (no threading name)

Names include non-ASCII and control characters. One thread ("sleep") renames its OS thread
(/proc/self/task/TID/comm). The truth ({"scenario", "pid", "python", "threads": [{"native_id",
"ident", "name", "os_name", "role", "is_main", "activity", "exception", "exception_message",
"gc", "proc_state"}]}) is recorded from inside: threading's names, sys.exc_info() in each
thread, /proc/self/task/TID/comm and the kernel's run state of each thread.
"""
import _thread
import gc
import os
import select
import socket
import sys
import threading
import time

from scenario_truth import truth_of, write_truth

TRUTH = sys.argv[1]
STOP = False
LOCK = threading.Lock()
RECORDS = {}  # native id -> what the thread says of itself
REGISTER = threading.Lock()
HELD = threading.Lock()
HELD.acquire()  # the main thread keeps it: "lock" waits on it for ever


def register(role, activity, **extra):
    info = sys.exc_info()
    record = {
        "role": role,
        "activity": activity,
        "exception": type(info[1]).__name__ if info[1] is not None else None,
        "exception_message": str(info[1]) if info[1] is not None else None,
        "gc": False,
    }
    record.update(extra)
    with REGISTER:
        RECORDS[threading.get_native_id()] = (threading.get_ident(), record)


def park():
    while True:
        time.sleep(3600)


def busy():
    register("busy", "running")
    x = 0
    while not STOP:
        x += 1


def lock_wait():
    register("lock", "idle")
    HELD.acquire()


def sleeper():
    with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
        comm.write("os-sleeper")
    register("sleep", "idle")
    park()


def select_wait():
    r, w = os.pipe()
    register("select", "idle", keep=(r, w))
    select.select([r], [], [])


def recv_wait():
    a, b = socket.socketpair()
    register("recv", "idle", keep=(a, b))
    a.recv(16)


def event_wait():
    register("event", "idle")
    threading.Event().wait()


class AppError(Exception):
    pass


def in_except(role, exception):
    try:
        raise exception
    except BaseException:
        register(role, "idle")
        park()


def nested_except():
    try:
        raise ValueError("outer")
    except ValueError:
        try:
            raise KeyError("inner")
        except KeyError:
            register("exc_nested", "idle")
            park()


class Finalizer:
    def __init__(self):
        self.cycle = self

    def __del__(self):
        register("gc", "idle", gc=True)
        park()


def collector():
    Finalizer()  # unreachable at once, kept alive by its own cycle
    gc.collect()


def dummy():
    threading.current_thread()  # makes a _DummyThread, listed in threading._active
    register("dummy", "idle")
    park()


def raw():
    register("raw", "idle")
    park()


NAMES = {
    "busy": "busy-spinner",
    "lock": "wörker-名前-😀",
    "sleep": "tab\there\x1b[31mred\nline",
    "select": "select-wait",
    "recv": "recv-wait",
    "event": "event-wait",
    "exc_value": "exc-value",
    "exc_key": "exc-key",
    "exc_custom": "exc-custom",
    "exc_nested": "exc-nested",
    "exc_os": "exc-os",
    "gc": "gc-collector",
}
TARGETS = {
    "busy": (busy, ()),
    "lock": (lock_wait, ()),
    "sleep": (sleeper, ()),
    "select": (select_wait, ()),
    "recv": (recv_wait, ()),
    "event": (event_wait, ()),
    "exc_value": (in_except, ("exc_value", ValueError("bad value 42"))),
    "exc_key": (in_except, ("exc_key", KeyError("missing-key"))),
    "exc_custom": (in_except, ("exc_custom", AppError("custom: ünï ✓", 7))),
    "exc_nested": (nested_except, ()),
    "exc_os": (in_except, ("exc_os", FileNotFoundError(2, "No such file"))),
    "gc": (collector, ()),
}


def thread_facts(native_id):
    """The OS thread's name and run state (R running, S sleeping, ...), as the kernel says."""
    base = f"/proc/self/task/{native_id}"
    with open(base + "/comm", "rb") as f:
        comm = f.read().rstrip(b"\n").decode("utf-8", "replace")
    with open(base + "/stat", "rb") as f:
        stat = f.read().decode("utf-8", "replace")
    state = stat[stat.rindex(")") + 2:].split()[0]
    return comm, state


def main():
    gc.disable()  # only the "gc" thread's explicit collection runs
    for role, (target, args) in TARGETS.items():
        threading.Thread(target=target, args=args, name=NAMES[role], daemon=True).start()
    _thread.start_new_thread(dummy, ())
    _thread.start_new_thread(raw, ())
    deadline = time.time() + 30
    expected = len(TARGETS) + 2
    while len(RECORDS) < expected:
        if time.time() > deadline:
            raise SystemExit(f"only {sorted(r['role'] for _, r in RECORDS.values())} registered")
        time.sleep(0.05)
    time.sleep(0.5)  # every thread reaches its wait after registering
    names = {t.ident: t.name for t in threading.enumerate()}
    threads = []
    main_native = threading.get_native_id()
    entries = list(RECORDS.items()) + [
        (main_native, (threading.get_ident(), {"role": "main", "activity": "idle",
                                               "exception": None, "exception_message": None,
                                               "gc": False}))]
    for native_id, (ident, record) in entries:
        record = {k: v for k, v in record.items() if k != "keep"}
        comm, state = thread_facts(native_id)
        if record["role"] != "main" and record["activity"] == "idle" and state != "S":
            raise SystemExit(f"thread {record['role']} is not asleep: state {state}")
        threads.append({
            "native_id": native_id,
            "ident": ident,
            "name": names.get(ident),
            "os_name": comm,
            "is_main": native_id == main_native,
            "proc_state": state,
            **record,
        })
    write_truth(TRUTH, truth_of("thread_states", threads))
    park()


main()

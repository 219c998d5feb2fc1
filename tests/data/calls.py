"""Threads parked inside calls into C, for `calling`: what each Python frame's
current call instruction calls where that is not Python code, as repr() gives it.
CPython 2.7 and 3.6 and later (2.7, 3.6, 3.7: each thread records its OS thread id with
gettid(2), legacy_truth.py; 3.6 has no _queue.SimpleQueue: "keywords" waits in
HELD.acquire(timeout=...); 2.7's lock takes no keywords: it waits in a socket's
recv_into(buffer, nbytes=1), whose blocking recv a debugger's attach does not interrupt).

usage: python calls.py TRUTH_JSON

Threads (role: the call it is parked in):
  main        park() -> time.sleep(3600)
  sleep       time.sleep(3600): a C function of a module
  lock        HELD.acquire(): a method descriptor of a C type, called with its self (3.6:
              the bound method, loaded first)
  bound       a bound C method kept in a local and called: HELD.acquire as an object
  sorted      sorted(..., key=a Python function) -> the key function -> time.sleep: the
              outer frame calls sorted, the inner one (which sorted started) sleep
  select      select.select on a pipe nobody writes
  star        time.sleep(*ARGS): CALL_FUNCTION_EX
  keywords    SimpleQueue().get(block=True, timeout=3600): keyword arguments (3.11+: the
              method descriptor; 3.8-3.10: the bound method, loaded first)
  deep        time.sleep inside a for loop, a with block, a try block and the arguments of
              two calls and a list and dict display: many values below the callee on the stack
  fromkeys    dict.fromkeys(a generator) -> the generator -> time.sleep: a C method bound to
              a type, calling back into a generator that dict.fromkeys resumed
  partial     functools.partial(time.sleep, 3600)(): a callable C object (no name of its own)

The truth ({"scenario", "pid", "python", "threads": [{"native_id", "role", "calling"}]})
lists, innermost first, one entry per Python frame of the thread (sys._current_frames()):
repr() of the callee as the process gives it ("<built-in function sleep>", "<built-in method
acquire of _thread.lock object at 0x...>", "<method 'acquire' of '_thread.lock' objects>") on
the innermost frame and on the frame that called sorted or dict.fromkeys, on 3.14+'s
Thread._bootstrap_inner (it calls the thread's Context.run), null on every other frame; a
callable whose own repr runs Python-level code (functools.partial) is given as
object.__repr__ gives it, "<functools.partial object at 0x...>".
"""
from __future__ import print_function

import functools
import linecache
import os
import select
import socket
import sys
import threading
import time

if sys.version_info[0] == 2:
    from legacy_truth import truth_of, write_truth  # scenario_truth is Python 3's
else:
    from scenario_truth import truth_of, write_truth

try:
    from threading import get_native_id
except ImportError:  # 3.6, 3.7
    from legacy_truth import gettid as get_native_id
try:
    import _queue
except ImportError:  # 3.6
    _queue = None

TRUTH = sys.argv[1]
HELD = threading.Lock()
HELD.acquire()  # the main thread keeps it: "lock" and "bound" wait on it for ever
QUEUE = _queue.SimpleQueue() if _queue else None
SOCKETS = socket.socketpair() if sys.version_info[0] == 2 else None
ARGS = (3600,)
RECORDS = {}  # native id -> (role, what its innermost frame calls, threading ident)
REGISTER = threading.Lock()


class Context(object):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def c_function(function):
    """repr() of a builtin_function_or_method."""
    return repr(function)


def register(role, *callees):
    """`callees`: what the innermost frame calls, then (for a callback) the frame below it."""
    with REGISTER:
        RECORDS[get_native_id()] = (role, list(callees), threading.current_thread().ident)


def park():
    while True:
        time.sleep(3600)


def sleeper():
    register("sleep", c_function(time.sleep))
    time.sleep(3600)


def lock_wait():
    # 3.6 has no LOAD_METHOD: it calls the bound method it loads.
    bound = sys.version_info < (3, 7)
    register("lock", c_function(HELD.acquire) if bound else repr(type(HELD).acquire))
    HELD.acquire()


def bound_wait():
    acquire = HELD.acquire
    register("bound", c_function(acquire))
    acquire()


def blocking_key(value):
    register("sorted", c_function(time.sleep), c_function(sorted))
    time.sleep(3600)
    return value


def sort_wait():
    sorted([2, 1], key=blocking_key)


def select_wait():
    r, w = os.pipe()
    register("select", c_function(select.select))
    select.select([r], [], [])


def star_wait():
    register("star", c_function(time.sleep))
    time.sleep(*ARGS)


def keywords_wait():
    # 3.11+ call the method descriptor with its self below the arguments; before 3.11 a call
    # with keywords loads the bound method first (LOAD_ATTR, CALL_FUNCTION_KW).
    legacy = sys.version_info < (3, 11)
    if SOCKETS is not None:  # 2.7: a bound C method, loaded first (LOAD_ATTR, CALL_FUNCTION)
        buffer = bytearray(1)
        register("keywords", c_function(SOCKETS[0].recv_into))
        SOCKETS[0].recv_into(buffer, nbytes=1)
        return
    if QUEUE is None:
        register("keywords", c_function(HELD.acquire))
        HELD.acquire(blocking=True, timeout=3600)
        return
    register("keywords", c_function(QUEUE.get) if legacy else repr(_queue.SimpleQueue.get))
    QUEUE.get(block=True, timeout=3600)


def deep_wait():
    register("deep", c_function(time.sleep))
    for _ in range(1):
        with Context():
            try:
                print("x", [1, 2, {"k": max(0, time.sleep(3600) or 1)}])
            except ValueError:
                pass


def sleeping_keys():
    register("fromkeys", c_function(time.sleep), c_function(dict.fromkeys))
    time.sleep(3600)
    yield 1


def fromkeys_wait():
    dict.fromkeys(sleeping_keys())


def partial_wait():
    call = functools.partial(time.sleep, 3600)
    register("partial", object.__repr__(call))
    call()


TARGETS = {
    "sleep": sleeper,
    "lock": lock_wait,
    "bound": bound_wait,
    "sorted": sort_wait,
    "select": select_wait,
    "star": star_wait,
    "keywords": keywords_wait,
    "deep": deep_wait,
    "fromkeys": fromkeys_wait,
    "partial": partial_wait,
}


def thread_start_call(frame):
    """3.14+: Thread._bootstrap_inner runs the thread in its context, a call into C
    (`self._context.run(self.run)`): the method descriptor it calls, else None."""
    bootstrap_inner = getattr(threading.Thread, "_bootstrap_inner", None)  # 2.7: mangled
    if bootstrap_inner is None or frame.f_code is not bootstrap_inner.__code__:
        return None
    if "_context.run(" not in linecache.getline(frame.f_code.co_filename, frame.f_lineno):
        return None
    return repr(type(frame.f_locals["self"]._context).run)


def expected_calling(callees, frame):
    """One entry per frame from `frame` outwards: `callees` first, then what a
    thread's start calls into (thread_start_call), else null."""
    calling = []
    while frame is not None:
        if len(calling) < len(callees):
            calling.append(callees[len(calling)])
        else:
            calling.append(thread_start_call(frame))
        frame = frame.f_back
    return calling


def main():
    for role, target in TARGETS.items():
        thread = threading.Thread(target=target, name=role)
        thread.daemon = True  # 2.7's constructor takes no daemon=
        thread.start()
    deadline = time.time() + 30
    while len(RECORDS) < len(TARGETS):
        if time.time() > deadline:
            raise SystemExit("only %s registered" % sorted(r for r, _, _ in RECORDS.values()))
        time.sleep(0.05)
    time.sleep(0.5)  # every thread reaches its call after registering
    frames = sys._current_frames()
    threads = []
    for native_id, (role, callees, ident) in RECORDS.items():
        threads.append({"native_id": native_id, "role": role,
                        "calling": expected_calling(callees, frames[ident])})
    # park() -> time.sleep above main() and <module>, which call Python functions.
    main_calling = [c_function(time.sleep)] + expected_calling([], sys._getframe())
    threads.append({"native_id": get_native_id(), "role": "main",
                    "calling": main_calling})
    write_truth(TRUTH, truth_of("calls", threads))
    park()


main()

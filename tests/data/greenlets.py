"""py-bt --greenlets' scenario: suspended greenlets in several threads, and gevent's.

- Two threads ("green-1", "green-2") each start three greenlets (one of a subclass of
  greenlet.greenlet) that switch back to the thread's main greenlet from known functions, and
  a fourth that records its own stack before it switches back (no gr_frame: on 3.12+ reading
  it rewrites the saved chain of frames, which py-bt must read as greenlet left it), make
  one greenlet that never starts and one that finishes (neither is suspended), and park in
  time.sleep: their main greenlets run, the three are suspended.
- One thread ("green-runner") starts two greenlets that switch back, then switches to a third
  that parks in time.sleep: its main greenlet and the two are suspended, the third runs.
- The main thread spawns four gevent greenlets sleeping in gevent.sleep, and a recorder, then
  blocks in gevent.sleep: gevent's hub runs (in C, no Python frame), the main greenlet, the
  four and the recorder (once it parks) are suspended. Where gevent is not built for this
  Python (Debian unstable's 3.15), the main thread records the others and parks in time.sleep.

The truth, written by the recorder once every thread is parked: for each thread (native id)
its suspended greenlets, each with id(), type(g).__name__, whether it is the thread's main
greenlet, and its gr_frame chain (file, line, function) innermost first.
"""
import os
import sys
import threading
import time

import greenlet

try:
    import gevent
except ImportError:
    gevent = None

from scenario_truth import line_marked, python_facts, stack, write_truth

TRUTH = {}          # native id -> list of greenlet entries
TRUTH_LOCK = threading.Lock()
KEPT = []           # every greenlet made, kept alive
THREADS_READY = threading.Semaphore(0)
WORKER_THREADS = 3


def entry(g, frames, is_main=False):
    return {"address": "%#x" % id(g), "type": type(g).__name__, "is_main": is_main,
            "frames": frames}


def record(entries):
    with TRUTH_LOCK:
        TRUTH.setdefault(str(threading.get_native_id()), []).extend(entries)


class Worker(greenlet.greenlet):
    """A subclass: py-bt must tell its instances greenlets too."""


def switch_back():
    greenlet.getcurrent().parent.switch()  # switched back


def leaf_a(depth):
    if depth:
        return leaf_a(depth - 1)
    switch_back()


def middle_b():
    leaf_a(2)


def top_c():
    value = 1
    middle_b()
    return value


def plain():
    switch_back()


def self_recorded():
    mine = stack(sys._getframe(), top_line=line_marked(self_recorded.__code__, "self-recorded"))
    record([entry(greenlet.getcurrent(), mine)])
    greenlet.getcurrent().parent.switch()  # self-recorded


def greenlet_thread():
    started = [greenlet.greenlet(top_c), Worker(plain), greenlet.greenlet(middle_b)]
    for g in started:
        g.switch()
    never = greenlet.greenlet(plain)      # not started: not suspended
    done = greenlet.greenlet(lambda: 42)  # finished: dead
    done.switch()
    unread = greenlet.greenlet(self_recorded)
    unread.switch()
    KEPT.extend(started + [never, done, unread])
    record([entry(g, stack(g.gr_frame)) for g in started])
    THREADS_READY.release()
    while True:
        time.sleep(3600)  # thread parked


def runner_body(others):
    main = greenlet.getcurrent().parent
    record([entry(main, stack(main.gr_frame), is_main=True)] +
           [entry(g, stack(g.gr_frame)) for g in others])
    THREADS_READY.release()
    while True:
        time.sleep(3600)  # runner parked


def runner_thread():
    others = [greenlet.greenlet(top_c), greenlet.greenlet(plain)]
    for g in others:
        g.switch()
    runner = greenlet.greenlet(runner_body)
    KEPT.extend(others + [runner])
    runner.switch(others)  # main greenlet suspended


def gevent_sleeper(seconds):
    gevent.sleep(seconds)  # gevent parked


def gevent_worker(index):
    if index % 2:
        gevent_sleeper(3600)
    else:
        gevent.sleep(3600)  # gevent parked directly


def wait_for_threads():
    deadline = time.monotonic() + 60
    for _ in range(WORKER_THREADS):
        if not THREADS_READY.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise SystemExit("a greenlet thread never parked")


def write(truth_path):
    with TRUTH_LOCK:
        threads = {native_id: {"greenlets": entries} for native_id, entries in TRUTH.items()}
    write_truth(truth_path, {"pid": os.getpid(), "python": python_facts(),
                             "greenlet_version": greenlet.__version__,
                             "gevent_version": gevent.__version__ if gevent else None,
                             "threads": threads})


def recorder(main, workers, truth_path):
    """Runs once main is blocked in the hub and every worker sleeps: writes the truth."""
    wait_for_threads()
    me = greenlet.getcurrent()
    # Where it will be once parked: in gevent.sleep, at the line the workers sleep on.
    mine = stack(sys._getframe(), top_line=line_marked(recorder.__code__, "recorder parked"))
    mine.insert(0, stack(workers[0].gr_frame)[0])
    record([entry(main, stack(main.gr_frame), is_main=True)] +
           [entry(g, stack(g.gr_frame)) for g in workers] + [entry(me, mine)])
    write(truth_path)
    gevent.sleep(3600)  # recorder parked


def main():
    python_facts()  # sysconfig keeps what it reads: before anything is recorded
    for name, body in (("green-1", greenlet_thread), ("green-2", greenlet_thread),
                       ("green-runner", runner_thread)):
        threading.Thread(target=body, name=name, daemon=True).start()
    if gevent is None:
        wait_for_threads()
        write(sys.argv[1])
        while True:
            time.sleep(3600)  # main parked
    workers = [gevent.spawn(gevent_worker, i) for i in range(4)]
    KEPT.append(gevent.spawn(recorder, greenlet.getcurrent(), workers, sys.argv[1]))
    KEPT.extend(workers)
    while True:
        gevent.sleep(3600)  # main parked


main()

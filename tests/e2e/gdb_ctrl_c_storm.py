# Sourced into GDB (ctrl_c_test.cc): Ctrl-C at random moments of a pyunwind command. A POSIX
# timer sends GDB the SIGINT a terminal's Ctrl-C would, at a chosen moment and without waiting
# for Python's lock (a Python thread could not run while the command holds it). GDB's handler
# then has the KeyboardInterrupt raised in the first Python code that runs: the script's, a
# callback's, or the library's `interrupted` poll.
#
#   (gdb) python storm("pyunwind py-bt --all", 100)
#
# prints one line, "STORM " and a JSON object counting how the runs ended:
#   interrupted  the command failed with "pyunwind: interrupted";
#   lost         it ran to its end and ctypes printed "Exception ignored ..." (Ctrl-C lost);
#   quit         GDB stopped it with a KeyboardInterrupt (Ctrl-C outside the library);
#   completed    it ran to its end (Ctrl-C came after it);
#   failed       any other error (and the first one's text, "first_failure").
import collections
import ctypes
import json
import random
import signal
import statistics
import time

import gdb


def fresh_stop():
    """A new stop as far as pyunwind knows (GDB's register_changed event): the command reads
    the process again instead of reusing what the run before read."""
    gdb.execute("set var $sp = $sp")


SIGEV_SIGNAL = 0  # <signal.h>: notify by sending sigevent.signo


class SigEvent(ctypes.Structure):  # struct sigevent, SIGEV_SIGNAL's fields
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("rest", ctypes.c_byte * 48)]


class TimeSpec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class ITimerSpec(ctypes.Structure):
    _fields_ = [("interval", TimeSpec), ("value", TimeSpec)]


class SigintTimer:
    """A POSIX timer (CLOCK_MONOTONIC, SIGEV_SIGNAL) that sends this process SIGINT once."""

    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.id = ctypes.c_void_p()
        event = SigEvent(None, signal.SIGINT, SIGEV_SIGNAL)
        if self.libc.timer_create(time.CLOCK_MONOTONIC, ctypes.byref(event),
                                  ctypes.byref(self.id)) != 0:
            raise OSError(ctypes.get_errno(), "timer_create")

    def arm(self, seconds):
        spec = ITimerSpec(TimeSpec(0, 0), TimeSpec(int(seconds), max(1, int(seconds % 1 * 1e9))))
        if self.libc.timer_settime(self.id, 0, ctypes.byref(spec), None) != 0:
            raise OSError(ctypes.get_errno(), "timer_settime")


def wait_until(moment):
    while time.monotonic() < moment:
        time.sleep(0.001)


def storm(command, runs, seed=1):
    rng = random.Random(seed)
    spans = []
    for _ in range(5):
        fresh_stop()
        start = time.perf_counter()
        gdb.execute(command, to_string=True)
        spans.append(time.perf_counter() - start)
    span = statistics.median(spans)
    counts = collections.Counter()
    first_failure = ""
    timer = SigintTimer()
    for _ in range(runs):
        fresh_stop()
        delay = rng.uniform(0, span)
        fired = time.monotonic() + delay + 0.005  # the timer has fired by then
        try:
            timer.arm(delay)
            text = gdb.execute(command, to_string=True)
            counts["lost" if "Exception ignored" in text else "completed"] += 1
        except gdb.error as e:
            if "pyunwind: interrupted" in str(e):
                counts["interrupted"] += 1
            else:
                counts["failed"] += 1
                first_failure = first_failure or str(e)
        except KeyboardInterrupt:
            counts["quit"] += 1
        while True:  # a SIGINT after the command interrupts the wait
            try:
                wait_until(fired)
                break
            except KeyboardInterrupt:
                pass
    result = dict(counts, span_ms=round(span * 1000, 3), first_failure=first_failure)
    gdb.write("STORM %s\n" % json.dumps(result, sort_keys=True))

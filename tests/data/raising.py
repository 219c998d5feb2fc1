"""A thread caught while an exception propagates, for tests/e2e/exception_raised_test.cc.

    python raising.py TRUTH

Parks its main thread in `park` (blocked in signal.sigwait for SIGUSR1) and writes TRUTH (JSON:
"pid", "raising": {"stack": where the thread will be at the breakpoint, innermost first;
"exception", "message"}). On SIGUSR1 `raise_here` calls `fail()` with an epoll object on its
frame's value stack. `fail`
raises; as the exception leaves `raise_here`, the eval loop drops the value stack before it
looks for a handler, and the epoll object's deallocation closes its descriptor (close(2)) with
the exception still raised, not yet handled: a debugger with a breakpoint on close(2) stops
there. `catch_it` handles the exception, then the thread parks again.
"""
import os
import _signal  # its C functions: no signal.py frame on the stack
import select
import sys
import time

from scenario_truth import frame_entry, line_marked, stack, write_truth

MESSAGE = "raised while a poller is dropped"


class RaisedHere(Exception):
    pass


def consume(poller, value):
    """Never called: its second argument raises first."""


def fail():
    raise RaisedHere(MESSAGE)


def raise_here():
    consume(select.epoll(), fail())  # the breakpoint


def catch_it():
    try:
        raise_here()  # catch_it calls
    except RaisedHere:
        pass


def park(truth):
    # The truth is written before the signal: from then on nothing may close a file but the
    # epoll object.
    here = sys._getframe()
    raising = [frame_entry(f.__code__, line_marked(f.__code__, marker))
               for f, marker in ((raise_here, "the breakpoint"), (catch_it, "catch_it calls"))]
    raising += stack(here, line_marked(here.f_code, "park calls"))
    _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGUSR1})
    write_truth(truth, {"pid": os.getpid(),
                        "raising": {"stack": raising, "exception": "RaisedHere",
                                    "message": MESSAGE}})
    _signal.sigwait({_signal.SIGUSR1})
    catch_it()  # park calls
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    park(sys.argv[1])

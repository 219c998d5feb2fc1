"""A program whose stack moves on when told, for tests/e2e/stop_cache_test.cc (one read per stop).

    python moving_stack.py TRUTH

Parks its main thread in `first_place` (blocked in signal.sigwait for SIGUSR1) and writes TRUTH
(JSON: "pid", "first": the stack innermost first as a debugger must show it, and
"second_truth": TRUTH.second). On SIGUSR1 it calls `second_place`, which writes TRUTH.second
({"second": its stack}) and then calls os.getppid(): a
debugger with a breakpoint on getppid stops there, the stack having moved. Then it parks.
"""
import os
import _signal  # its C functions: no signal.py frame on the stack
import sys
import time

from scenario_truth import stack, write_truth


def second_place(truth):
    here = sys._getframe()
    write_truth(truth + ".second", {"second": stack(here, here.f_lineno + 1)})
    os.getppid()  # the breakpoint
    while True:
        time.sleep(3600)


def first_place(truth):
    _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGUSR1})
    here = sys._getframe()
    parked = here.f_lineno + 3  # the sigwait line
    write_truth(truth, {"pid": os.getpid(), "first": stack(here, parked),
                       "second_truth": truth + ".second"})
    _signal.sigwait({_signal.SIGUSR1})  # parked here
    second_place(truth)


def main():
    first_place(sys.argv[1])


if __name__ == "__main__":
    main()

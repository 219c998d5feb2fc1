"""A program whose stack moves on when told, for tests/e2e/stop_cache_test.cc (one read per stop).

    python moving_stack.py TRUTH

Parks its main thread in `first_place` (blocked in signal.sigwait for SIGUSR1) and writes TRUTH
(JSON: "pid", "first": the stack innermost first as a debugger must show it, and
"second_truth": TRUTH.second). On SIGUSR1 it calls `second_place`, which writes TRUTH.second
({"second": its stack}) and then calls os.getppid(): a
debugger with a breakpoint on getppid stops there, the stack having moved. Then it parks.
"""
import json
import os
import _signal  # its C functions: no signal.py frame on the stack
import sys
import time


def stack_of(frame, top_line):
    out = []
    while frame is not None:
        code = frame.f_code
        out.append({"filename": code.co_filename,
                    "line": top_line if not out else frame.f_lineno,
                    "name": code.co_name,
                    "qualname": getattr(code, "co_qualname", code.co_name)})
        frame = frame.f_back
    return out


def write_json(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f)
    os.rename(path + ".tmp", path)


def second_place(truth):
    here = sys._getframe()
    write_json(truth + ".second", {"second": stack_of(here, here.f_lineno + 1)})
    os.getppid()  # the breakpoint
    while True:
        time.sleep(3600)


def first_place(truth):
    _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGUSR1})
    here = sys._getframe()
    parked = here.f_lineno + 3  # the sigwait line
    write_json(truth, {"pid": os.getpid(), "first": stack_of(here, parked),
                       "second_truth": truth + ".second"})
    _signal.sigwait({_signal.SIGUSR1})  # parked here
    second_place(truth)


def main():
    first_place(sys.argv[1])


if __name__ == "__main__":
    main()

"""Threads parked in different shapes of Python stack, for `py-bt --all` against the truth.

usage: python threads.py TRUTH_JSON

Roles (each thread parks in scenario_truth.sleep_forever unless said otherwise):
  main       the main thread: a method, a closure and a lambda, then recursion 6 deep
  deep       recursion 40 deep
  waiter     threading.Event().wait(): the standard library's frames on top, blocked in a lock
  reentry    Python called back from C functions: max(key=) -> functools.reduce -> map
  generator  a generator delegating (`yield from`) to another generator
  unicode    functions and file names in Latin-1, UCS-2 and UCS-4 characters (compiled code)
  spinner    a busy loop on one line: the thread that holds the GIL (gil_holder_role)
  recorder   takes the others' stacks (twice, they must agree), writes the truth, parks

Truth: scenario_truth.truth_of(), with "gil_holder_role": "spinner".
"""
import functools
import sys
import threading

from scenario_truth import Roll, sleep_forever, truth_of, write_truth

roll = Roll(expected=7)
STOP = False


def descend(depth, role):
    if depth == 0:
        roll.here(role)
        sleep_forever()
    return descend(depth - 1, role)


def wait_for_nothing():
    roll.here("waiter")
    threading.Event().wait()


def innermost_callback(item):
    roll.here("reentry")
    sleep_forever()
    return item


def fold_step(total, item):
    return total + sum(map(innermost_callback, [item]))


def weight(item):
    return functools.reduce(fold_step, [item], 0)


def call_through_c():
    return max([5, 8], key=weight)


def produce():
    roll.here("generator")
    sleep_forever()
    yield "never"


def relay():
    yield from produce()


def drain_generator():
    return list(relay())


# Compiled from strings: a name and a file name of each compact string kind (CPython stores a
# str in 1, 2 or 4 bytes per character: Latin-1, UCS-2, UCS-4).
UNICODE_FUNCTIONS = [
    ("/nonexistent/café/ñandú.py", "def größe(next_call):\n    return next_call()\n"),
    ("/nonexistent/日本/παράδειγμα.py", "def Ωμέγα(next_call):\n    return next_call()\n"),
    ("/nonexistent/turtle_🐢.py", "def 𠮷野(next_call):\n    return next_call()\n"),
]


def unicode_names():
    call = lambda: (roll.here("unicode"), sleep_forever())
    for filename, source in reversed(UNICODE_FUNCTIONS):
        namespace = {}
        exec(compile(source, filename, "exec"), namespace)
        function = next(v for k, v in namespace.items() if k != "__builtins__")
        call = functools.partial(function, call)
    call()


def spin():
    roll.here("spinner")
    while not STOP: pass


def record(truth_path):
    others = roll.threads(leave_out={threading.get_ident()})
    me = roll.my_row("recorder", "recorder parks")
    write_truth(truth_path, truth_of("threads", others + [me], gil_holder_role="spinner"))
    sleep_forever()  # recorder parks


class Handler:
    def handle(self, depth):
        def closure():
            return (lambda: descend(depth, "main"))()
        return closure()


def main(truth_path):
    workers = {
        "deep": (descend, (40, "deep")),
        "waiter": (wait_for_nothing, ()),
        "reentry": (call_through_c, ()),
        "generator": (drain_generator, ()),
        "unicode": (unicode_names, ()),
        "spinner": (spin, ()),
        "recorder": (record, (truth_path,)),
    }
    for name, (target, args) in workers.items():
        threading.Thread(target=target, args=args, name=name, daemon=True).start()
    Handler().handle(6)


if __name__ == "__main__":
    main(sys.argv[1])

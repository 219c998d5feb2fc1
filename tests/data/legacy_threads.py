# -*- coding: utf-8 -*-
"""threads.py for every CPython from 2.7 on: threads parked in different shapes of Python
stack, for `py-bt --all` against the truth (tests/e2e/older_versions_test.cc).

usage: python legacy_threads.py TRUTH_JSON

Roles (each thread parks in legacy_truth.sleep_forever unless said otherwise):
  main       the main thread: a method, a closure and a lambda, then recursion 6 deep
  deep       recursion 40 deep
  waiter     threading.Event().wait(): the standard library's frames on top, blocked in a lock
  reentry    Python called back from C functions: max(key=) -> functools.reduce -> map
  generator  a generator delegating to another with a for loop (2.7 has no `yield from`)
  unicode    Python 3 only (2.7 identifiers are ASCII): functions and file names in Latin-1,
             UCS-2 and UCS-4 characters (compiled code)
  spinner    a busy loop on one line: the thread that holds the GIL (gil_holder_role)
  recorder   takes the others' stacks (twice, they must agree), writes the truth, parks

Truth: legacy_truth.truth_of(), with "gil_holder_role": "spinner".
"""
from __future__ import print_function

import functools
import sys

from legacy_truth import Roll, get_ident, sleep_forever, start_thread, truth_of, write_truth

PY3 = sys.version_info[0] >= 3
roll = Roll(expected=7 if PY3 else 6)  # every role but the recorder
STOP = False


def descend(depth, role):
    if depth == 0:
        roll.here(role)
        sleep_forever()
    return descend(depth - 1, role)


def wait_for_nothing():
    import threading
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
    for value in produce():
        yield value


def drain_generator():
    return list(relay())


# Compiled from strings: a name and a file name of each compact string kind (CPython 3 stores
# a str in 1, 2 or 4 bytes per character: Latin-1, UCS-2, UCS-4).
UNICODE_FUNCTIONS = [
    (u"/nonexistent/café/ñandú.py", u"def größe(next_call):\n    return next_call()\n"),
    (u"/nonexistent/日本/παράδειγμα.py", u"def Ωμέγα(next_call):\n    return next_call()\n"),
    (u"/nonexistent/turtle_🐢.py", u"def 𠮷野(next_call):\n    return next_call()\n"),
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
    others = roll.threads(leave_out={get_ident()})
    me = roll.my_row("recorder", "recorder parks")
    write_truth(truth_path, truth_of("legacy_threads", others + [me], gil_holder_role="spinner"))
    if not PY3:
        # 2.7 drops and takes the GIL back every 100 ticks, with no other thread asking: a core
        # taken then shows no holder (1 core in 8 here). Now the spinner keeps it for tens of seconds.
        sys.setcheckinterval(2 ** 31 - 1)
    sleep_forever()  # recorder parks


class Handler(object):
    def handle(self, depth):
        def closure():
            return (lambda: descend(depth, "main"))()
        return closure()


def main(truth_path):
    workers = [
        ("deep", descend, (40, "deep")),
        ("waiter", wait_for_nothing, ()),
        ("reentry", call_through_c, ()),
        ("generator", drain_generator, ()),
        ("spinner", spin, ()),
        ("recorder", record, (truth_path,)),
    ]
    if PY3:
        workers.append(("unicode", unicode_names, ()))
    for name, target, args in workers:
        start_thread(target, args, name)
    Handler().handle(6)


if __name__ == "__main__":
    main(sys.argv[1])

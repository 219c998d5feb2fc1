# -*- coding: utf-8 -*-
"""locals.py for every CPython from 2.7 on: a thread whose frames hold arguments and locals
of simple types, for `py-bt --all --locals` against the truth.

usage: python legacy_locals.py TRUTH_JSON

Threads, in the order they start: main (parks), worker (outer() -> middle() -> innermost(),
parked), recorder (writes the truth, parks).

The values are the types every version has with the same name and repr (int, str, float,
None, bool, tuple, list, dict), ASCII text only: 2.7's str is bytes, and a non-ASCII one
would have another repr there than on 3. Small ints only (2.7's big ones are `long`).

Truth: legacy_truth.truth_of() with "locals": {"role": "worker", "frames": [{"qualname",
"locals": {NAME: {"type", "repr"}}}]}, every frame of the worker innermost first, each
local's type name and repr() cut at 120 characters, as the process sees them (the format of
locals.py, compared by tests/locals_truth.h).
"""
from __future__ import print_function

import sys

from legacy_truth import Roll, get_ident, sleep_forever, start_thread, truth_of, write_truth

roll = Roll(expected=2)


def innermost(number, word, ratio, yes, nothing, pair, items, table):
    empty = []
    negative = -7
    roll.here("worker")
    sleep_forever()


def middle(account, tags):
    count = len(tags) * 3
    motto = "plain words"
    return innermost(1234567, "word", 0.125, True, None, ("x", 2), [4, 5, 6], {"k": [1]})


def outer():
    account = 1234
    return middle(account, ["red", "green"])


def describe(frame):
    return dict((name, {"type": type(value).__name__, "repr": repr(value)[:120]})
                for name, value in frame.f_locals.items())


def record(truth_path, worker):
    others = roll.threads(leave_out={get_ident()})
    frames = []
    frame = sys._current_frames()[worker.ident]
    while frame is not None:
        code = frame.f_code
        frames.append({"qualname": getattr(code, "co_qualname", code.co_name),
                       "locals": describe(frame)})
        frame = frame.f_back
    me = roll.my_row("recorder", "recorder parks")
    write_truth(truth_path, truth_of("legacy_locals", others + [me],
                                     locals={"role": "worker", "frames": frames}))
    sleep_forever()  # recorder parks


def main(truth_path):
    worker = start_thread(outer, name="worker")
    start_thread(record, (truth_path, worker), name="recorder")
    roll.here("main")
    sleep_forever()


if __name__ == "__main__":
    main(sys.argv[1])

"""A process whose few MB of memory multiply into gigabytes of debugger output without an output
budget (core/base/limits.h): the main thread recurses WIDE_FRAMES deep in a generated function
with 1,024 locals of 4,000-character names, a second thread DEEP_FRAMES deep; both functions'
code objects are named by 8 KB (co_name and co_qualname). Both threads then park. The main
thread, shown first, holds the locals: py-bt --locals reaches them before any budget runs out.
Usage: python3 hostile_output.py TRUTH_JSON; the truth is {"pid", "python": {"hexversion"},
"deep_frames", "wide_frames", "local_name_length"}, written once both threads are parked.
"""
import json
import os
import sys
import threading
import time

TRUTH = sys.argv[1]
DEEP_FRAMES = 20000  # x 4 KB of name each: past 64 MiB of py-bt text, 160 MB in bt's line
WIDE_FRAMES = 400  # x 4 MB of local names each
LOCALS = 1024
LOCAL_NAME_LENGTH = 4000
LONG_NAME = "long_" + "n" * (8192 - 5)


def wide_source():
    names = ["v%04d_" % i + "x" * (LOCAL_NAME_LENGTH - 6) for i in range(LOCALS)]
    body = "".join("    %s = %d\n" % (name, i) for i, name in enumerate(names))
    return ("def wide(depth, parked):\n" + body +
            "    if depth:\n"
            "        wide(depth - 1, parked)\n"
            "    parked()\n"
            "    while True:\n"
            "        time.sleep(3600)\n")


def deep(depth, parked):
    if depth:
        deep(depth - 1, parked)
    parked()
    while True:
        time.sleep(3600)


def write_truth():
    with open(TRUTH + ".tmp", "w") as f:
        json.dump({"pid": os.getpid(), "python": {"hexversion": sys.hexversion},
                   "deep_frames": DEEP_FRAMES, "wide_frames": WIDE_FRAMES,
                   "local_name_length": LOCAL_NAME_LENGTH}, f)
    os.rename(TRUTH + ".tmp", TRUTH)


def long_named(function):
    function.__code__ = function.__code__.replace(co_name=LONG_NAME, co_qualname=LONG_NAME)
    return function


namespace = {"time": time}
exec(compile(wide_source(), "generated_wide.py", "exec"), namespace)
wide = long_named(namespace["wide"])
long_named(deep)
sys.setrecursionlimit(DEEP_FRAMES + 100)
deep_parked = threading.Event()
threading.Thread(target=deep, args=(DEEP_FRAMES - 1, deep_parked.set), daemon=True).start()
deep_parked.wait(60)
wide(WIDE_FRAMES - 1, write_truth)

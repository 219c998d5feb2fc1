"""The exceptions the script swallows where GDB or the library calls it (a callback, the
frame filter): each is counted by place, so that a GDB API the script misuses (GDB 10 has no
Frame.level()) shows in `pyunwind version -v` and not only as frames missing from the output.
With PYUNWIND_DEBUG=1 in GDB's environment each is printed with its traceback.

gdb.error is not counted: it is GDB saying no (memory that cannot be read, a symbol that is
not there), which the callback answers as a failure by design."""

import collections
import os
import traceback

import gdb

_by_place = collections.Counter()


def debugging():
    return os.environ.get("PYUNWIND_DEBUG", "") not in ("", "0")


def note(place):
    """Counts the exception being handled as swallowed at `place` (call it in the `except`
    block) and, under PYUNWIND_DEBUG=1, prints it to GDB's stderr."""
    _by_place[place] += 1
    if debugging():
        gdb.write("pyunwind: exception swallowed in %s (PYUNWIND_DEBUG=1):\n%s"
                  % (place, traceback.format_exc()), gdb.STDERR)


def counts():
    """{place: how many}"""
    return dict(_by_place)


def summary():
    """One line: how many were swallowed, and where."""
    total = sum(_by_place.values())
    line = "GDB script: %d exception%s swallowed" % (total, "" if total == 1 else "s")
    if total:
        line += " (%s)" % ", ".join("%s: %d" % item for item in sorted(_by_place.items()))
        if not debugging():
            line += "; PYUNWIND_DEBUG=1 prints them"
    return line

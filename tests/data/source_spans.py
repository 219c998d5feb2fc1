"""Threads parked inside expressions whose spans Python's tracebacks underline.

usage: python source_spans.py TRUTH_JSON

  middle     a call in the middle of a line:       total = base + park_here(base) * 2
  multiline  a call over four lines:               return sorted(\n items,\n key=..., \n)
  subscript  a subscript whose __getitem__ parks:  value = (table)[key] + 1
  binop      a binary operation whose __add__ parks: return (left) + right
  hostile    a line of a real file holding ESC, BEL and a bidi override in a string
  sleeper    time.sleep(3600) in its innermost frame
  main       main_outer(OUTER_ARG) -> main_park(): locals longer and deeper than py-locals
             shows, a cell, and GLOBAL_TABLE (for py-print); their repr() is recorded as
             "print_truth"

Every parked thread's stack is recorded from inside the process: for each frame
(innermost first) its file, line, name, qualname and what this interpreter's
traceback module prints under it (traceback.StackSummary.format_frame_summary of
a FrameSummary at the frame's own instruction, f_lasti, with its co_positions():
what a traceback through that frame shows), without the 4-space indent. TRUTH_JSON
is {"pid", "python": {"hexversion"}, "hostile_file", "threads": [{"role",
"native_id", "frames": [...]}]}, written atomically once all are parked.
"""
import json
import os
import sys
import tempfile
import threading
import time
import traceback

TRUTH = sys.argv[1]
ROLES = ["middle", "multiline", "subscript", "binop", "hostile", "sleeper"]
registered = {}
lock = threading.Lock()
all_parked = threading.Event()


def park(role):
    with lock:
        registered[role] = threading.get_native_id()
        if len(registered) == len(ROLES):
            all_parked.set()
    time.sleep(3600)


def park_here(base):
    park("middle")
    return base


def middle():
    base = 1
    total = base + park_here(base) * 2
    return total


def blocking_key(item):
    park("multiline")
    return item


def multiline(items):
    return sorted(
        items,
        key=blocking_key,
    )


class Table:
    def __getitem__(self, key):
        park("subscript")
        return key


def subscript():
    table, key = Table(), 3
    value = (table)[key] + 1
    return value


class Slow:
    def __add__(self, other):
        park("binop")
        return other


def binop(left, right):
    return (left) + right


def sleeper():
    with lock:
        registered["sleeper"] = threading.get_native_id()
        if len(registered) == len(ROLES):
            all_parked.set()
    time.sleep(3600)


# A real file whose parked line holds terminal escapes: its source line is target-chosen text.
HOSTILE_SOURCE = (
    "def hostile(park):\n"
    "    park('hostile') or '\x1b]0;PWNED-TITLE\x07\x1b[2J\u202e'\n"
)
hostile_dir = tempfile.mkdtemp(prefix="pyunwind-spans-")
hostile_file = os.path.join(hostile_dir, "hostile.py")
with open(hostile_file, "w", encoding="utf-8") as f:
    f.write(HOSTILE_SOURCE)
hostile_namespace = {}
exec(compile(HOSTILE_SOURCE, hostile_file, "exec"), hostile_namespace)


def printed_under(frame):
    code = frame.f_code
    position = traceback._get_code_position(code, frame.f_lasti)
    summary = traceback.FrameSummary(code.co_filename, position[0], code.co_name,
                                     end_lineno=position[1], colno=position[2],
                                     end_colno=position[3])
    rows = traceback.StackSummary().format_frame_summary(summary).split("\n")[1:-1]
    return [row[4:] if row.startswith("    ") else row for row in rows]


def frames_of(frame):
    out = []
    while frame is not None:
        code = frame.f_code
        out.append({
            "filename": code.co_filename,
            "line": frame.f_lineno,
            "name": code.co_name,
            "qualname": getattr(code, "co_qualname", code.co_name),
            "printed": printed_under(frame),
        })
        frame = frame.f_back
    return out


targets = {
    "middle": (middle, ()),
    "multiline": (multiline, ([2, 1],)),
    "subscript": (subscript, ()),
    "binop": (binop, (Slow(), 5)),
    "hostile": (hostile_namespace["hostile"], (park,)),
    "sleeper": (sleeper, ()),
}
for role in ROLES:
    function, args = targets[role]
    threading.Thread(target=function, args=args, name=role, daemon=True).start()
all_parked.wait(60)
time.sleep(0.3)  # each thread reaches its sleep
by_id = sys._current_frames()
native_to_ident = {t.native_id: t.ident for t in threading.enumerate()}
threads = []
for role in ROLES:
    native_id = registered[role]
    threads.append({"role": role, "native_id": native_id,
                     "frames": frames_of(by_id[native_to_ident[native_id]])})
GLOBAL_TABLE = {"key-%d" % i: list(range(i)) for i in range(30)}


def main_park(print_truth):
    long_text = "x" * 500 + "END"
    huge_text = "y" * 20000 + "END"  # longer than py-print shows by default (10,000)
    deep = [[[[[[1, "two"]]]]], {"k": (3.5, None, True)}]
    counted = 7

    def uses_cell():
        return counted

    print_truth.update({"long_text": repr(long_text), "huge_text": repr(huge_text),
                        "deep": repr(deep), "counted": repr(counted),
                        "GLOBAL_TABLE": repr(GLOBAL_TABLE)})
    with open(TRUTH + ".tmp", "w") as f:
        json.dump({"pid": os.getpid(), "python": {"hexversion": sys.hexversion},
                   "hostile_file": hostile_file, "threads": threads,
                   "print_truth": print_truth}, f)
    os.rename(TRUTH + ".tmp", TRUTH)
    time.sleep(3600)
    return uses_cell


def main_outer(outer_arg):
    main_park({"outer_arg": repr(outer_arg)})


main_outer(("outer", 1))

"""What a parked test scenario says about itself, and how it writes it down.

The scenario programs of tests/data (threads.py, asyncio_tree.py, locals.py, scale.py, and
the issue-specific ones) park their threads, describe from inside the process what a correct
unwinder must show, and write that "truth" as one JSON file, atomically, once everything is
parked: the test harness (tests/e2e/harness.cc) waits for the file to appear. Frames are listed
innermost first, as a debugger prints them, each as {"filename", "line", "name", "qualname"}.
"""
import json
import os
import sys
import sysconfig
import threading
import time


def frame_entry(code, line):
    """One frame of the truth: where `code` is, at `line`."""
    return {
        "filename": code.co_filename,
        "line": line,
        "name": code.co_name,
        "qualname": getattr(code, "co_qualname", code.co_name),  # 3.11+ has co_qualname
    }


def stack(frame, top_line=None):
    """The frames from `frame` outwards (innermost first). `top_line` replaces the line of
    `frame` itself: the line it will be parked on, when the stack is taken before it gets
    there."""
    frames = []
    while frame is not None:
        line = top_line if top_line is not None and not frames else frame.f_lineno
        frames.append(frame_entry(frame.f_code, line))
        frame = frame.f_back
    return frames


def line_marked(code, marker):
    """The number of the line of `code` (a function's code object) that ends with the comment
    `# marker`."""
    with open(code.co_filename, encoding="utf-8") as source:
        for number, text in enumerate(source, 1):
            if number >= code.co_firstlineno and text.rstrip().endswith("# " + marker):
                return number
    raise LookupError("no line marked %r in %s" % (marker, code.co_name))


def python_facts():
    """The interpreter, as the truth's "python" object describes it."""
    with open("/proc/self/maps") as maps:
        shared = "libpython" in maps.read()  # what is mapped, not what the build says
    return {
        "version": "%d.%d.%d" % sys.version_info[:3],
        "hexversion": sys.hexversion,
        "executable": sys.executable,
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "shared_libpython": shared,
    }


def write_truth(path, truth):
    """Writes `truth` to `path` at once (a reader never sees half a file)."""
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump(truth, out, indent=1, ensure_ascii=False)
    os.replace(path + ".tmp", path)


def sleep_forever():
    """Blocks in C, without the GIL, for ever: its caller's line is where a thread parks."""
    while True:
        time.sleep(3600)  # parked


class Roll:
    """The roll call of a scenario's threads: each says its role once it is about to park;
    the recorder waits for all of them, then takes their stacks twice and keeps them only if
    nothing moved."""

    def __init__(self, expected):
        self.expected = expected
        self.roles = {}  # threading ident -> role
        self.lock = threading.Lock()

    def here(self, role):
        with self.lock:
            self.roles[threading.get_ident()] = role

    def wait(self, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                if len(self.roles) >= self.expected:
                    return
                missing = self.expected - len(self.roles)
            if time.monotonic() > deadline:
                raise SystemExit("%d thread(s) never reached their place" % missing)
            time.sleep(0.02)

    def threads(self, leave_out=(), settle=0.4):
        """Every thread but those of `leave_out` (idents), as the truth lists them, once two
        snapshots `settle` seconds apart agree."""
        self.wait()
        time.sleep(settle)
        first = self._snapshot(leave_out)
        time.sleep(settle)
        second = self._snapshot(leave_out)
        if first != second:
            raise SystemExit("the parked stacks moved between two snapshots: no truth written")
        return second

    def _snapshot(self, leave_out):
        frames = sys._current_frames()
        rows = []
        for thread in threading.enumerate():
            if thread.ident in leave_out or thread.ident not in frames:
                continue
            rows.append(self.row(thread, stack(frames[thread.ident])))
        return rows

    def my_row(self, role, marker):
        """The calling thread's entry as it will be once its caller's line marked `# marker`
        has called sleep_forever()."""
        caller = sys._getframe(1)
        frames = stack(caller, top_line=line_marked(caller.f_code, marker))
        frames.insert(0, frame_entry(sleep_forever.__code__,
                                     line_marked(sleep_forever.__code__, "parked")))
        self.here(role)
        return self.row(threading.current_thread(), frames)

    def row(self, thread, frames):
        """The truth's entry for `thread` with these frames."""
        return {
            "native_id": thread.native_id,
            "ident": thread.ident,
            "name": thread.name,
            "role": self.roles.get(thread.ident, "unknown"),
            "is_main": thread is threading.main_thread(),
            "frames": frames,
        }


def native_thread_id():
    """The calling thread's OS thread id (threading.get_native_id, 3.8+); None on 3.6 and 3.7,
    whose threads are matched by ident (threading.get_ident, the thread state's thread_id)."""
    get_native_id = getattr(threading, "get_native_id", None)
    return get_native_id() if get_native_id else None


class WaitNotes:
    """What each thread of a py-waits scenario waits for, noted by the thread itself; holders
    are named by thread name until the truth is written (they may not have started yet)."""

    def __init__(self):
        self.threads = {}  # name -> entry

    def note(self, waits, address=None, held_by=None, **extra):
        """The calling thread waits for `waits` (py-waits' kind) on the object whose id() is
        `address`, held by the threads named in `held_by` (None: nobody recorded)."""
        name = threading.current_thread().name
        self.threads[name] = dict(name=name, ident=threading.get_ident(),
                                  native_id=native_thread_id(), waits=waits,
                                  address=None if address is None else "%#x" % address,
                                  held_by=held_by, **extra)

    def entries(self):
        """The truth's thread entries, holders as idents."""
        idents = {name: entry["ident"] for name, entry in self.threads.items()}
        return [dict(entry, held_by=None if entry["held_by"] is None
                     else [idents[h] for h in entry["held_by"]])
                for entry in self.threads.values()]

    def cycle(self, names):
        """The cycle of the threads `names`, each waiting for the next, from its least ident."""
        idents = [self.threads[n]["ident"] for n in names]
        start = idents.index(min(idents))
        return [{"kind": "thread", "id": self.threads[n]["ident"], "name": n}
                for n in names[start:] + names[:start]]


def truth_of(scenario, threads, **extra):
    """The whole truth document: threads sorted by OS thread id (3.6, 3.7: by ident)."""
    doc = {"scenario": scenario, "pid": os.getpid(), "python": python_facts(),
           "threads": sorted(threads, key=lambda t: (t["native_id"] or 0, t.get("ident", 0)))}
    doc.update(extra)
    return doc

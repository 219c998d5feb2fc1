"""scenario_truth.py for every CPython from 2.7 on: the same truth document, written by code
that runs unchanged on 2.7 and 3.6+ (the legacy_*.py scenarios use it).

What differs from scenario_truth.py, and why:
  * native_id: threading's native_id is 3.8+; each thread records its OS thread id itself
    (gettid(2) through ctypes) when it answers the roll call, so every thread must call
    Roll.here() before it parks.
  * qualname: 3.11+ keeps the qualified name in the code object (co_qualname), and pyunwind
    shows it; before 3.11 only the function object has __qualname__, and a frame leads to
    its code, not its function, so a reader of memory can only know co_name. The truth's
    "qualname" is therefore co_qualname on 3.11+ and co_name on 2.7-3.10.
  * no f-strings, keyword-only arguments, time.monotonic, os.replace, threading.get_ident,
    threading.main_thread or Thread(daemon=...): each is newer than 2.7.
The JSON is written ASCII-only (non-ASCII as \\u escapes): the same bytes from 2.7 and 3.
"""
from __future__ import print_function

import ctypes
import io
import json
import os
import platform
import sys
import sysconfig
import threading
import time

try:
    from threading import get_ident
except ImportError:  # 2.7
    from thread import get_ident

# gettid's system call number: glibc before 2.30 has no gettid() wrapper.
_GETTID = {"x86_64": 186, "aarch64": 178}[platform.machine()]
_libc = ctypes.CDLL(None, use_errno=True)

# This module is first imported by the scenario's main thread (2.7 has no main_thread()).
MAIN_THREAD = threading.current_thread()


def gettid():
    """The calling thread's OS thread id (what a debugger lists as its LWP)."""
    return _libc.syscall(_GETTID)


def frame_entry(code, line):
    """One frame of the truth: where `code` is, at `line`."""
    return {
        "filename": code.co_filename,
        "line": line,
        "name": code.co_name,
        "qualname": getattr(code, "co_qualname", code.co_name),  # see the top of this file
    }


def stack(frame, top_line=None):
    """The frames from `frame` outwards (innermost first); `top_line` replaces the line of
    `frame` itself (the line it will be parked on)."""
    frames = []
    while frame is not None:
        line = top_line if top_line is not None and not frames else frame.f_lineno
        frames.append(frame_entry(frame.f_code, line))
        frame = frame.f_back
    return frames


def line_marked(code, marker):
    """The number of the line of `code` that ends with the comment `# marker`."""
    with io.open(code.co_filename, encoding="utf-8") as source:
        for number, text in enumerate(source, 1):
            if number >= code.co_firstlineno and text.rstrip().endswith(u"# " + marker):
                return number
    raise LookupError("no line marked %r in %s" % (marker, code.co_name))


def python_facts():
    """The interpreter, as the truth's "python" object describes it."""
    with open("/proc/self/maps") as maps:
        shared = "libpython" in maps.read()  # what is mapped, not what the build says
    return {
        "version": "%d.%d.%d" % tuple(sys.version_info[:3]),
        "hexversion": sys.hexversion,
        "executable": sys.executable,
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "shared_libpython": shared,
    }


def write_truth(path, truth):
    """Writes `truth` to `path` at once (rename is atomic: a reader never sees half a file)."""
    with open(path + ".tmp", "w") as out:
        out.write(json.dumps(truth, indent=1, sort_keys=True))
    os.rename(path + ".tmp", path)


def sleep_forever():
    """Blocks in C, without the GIL, for ever: its caller's line is where a thread parks."""
    while True:
        time.sleep(3600)  # parked


def start_thread(target, args=(), name=None):
    """A daemon thread (2.7's Thread takes no daemon= argument)."""
    thread = threading.Thread(target=target, args=args, name=name)
    thread.daemon = True
    thread.start()
    return thread


class Roll:
    """The roll call of a scenario's threads: each says its role (and its OS thread id) once
    it is about to park; the recorder waits for all of them, then takes their stacks twice
    and keeps them only if nothing moved."""

    def __init__(self, expected):
        self.expected = expected
        self.roles = {}  # threading ident -> role
        self.native_ids = {}  # threading ident -> OS thread id
        self.lock = threading.Lock()

    def here(self, role):
        with self.lock:
            self.roles[get_ident()] = role
            self.native_ids[get_ident()] = gettid()

    def wait(self, timeout=60):
        deadline = time.time() + timeout
        while True:
            with self.lock:
                if len(self.roles) >= self.expected:
                    return
                missing = self.expected - len(self.roles)
            if time.time() > deadline:
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
            if thread.ident not in self.native_ids:
                raise SystemExit("thread %r never answered the roll call" % thread.name)
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
            "native_id": self.native_ids[thread.ident],
            "ident": thread.ident,
            "name": thread.name,
            "role": self.roles.get(thread.ident, "unknown"),
            "is_main": thread.ident == MAIN_THREAD.ident,
            "frames": frames,
        }


def truth_of(scenario, threads, **extra):
    """The whole truth document: threads sorted by OS thread id."""
    doc = {"scenario": scenario, "pid": os.getpid(), "python": python_facts(),
           "threads": sorted(threads, key=lambda t: t["native_id"])}
    doc.update(extra)
    return doc

"""What one run of the library needs of GDB: memory, symbols, CLI listings, threads and
their backtraces. The library's callbacks (callbacks.py) call the methods of the session
that runs, `running.session`."""

import contextlib
import ctypes
import os
import re

import gdb

from . import output
from . import swallowed

# The native frames of a thread handed to the library, newest first.
MAX_NATIVE_FRAMES = 4096


class Running:
    """The session of the library's run that is going on, or None: commands (and the frame
    filter) run one at a time on GDB's thread. An attribute, not a function to call, so that
    a Ctrl-C's KeyboardInterrupt cannot come between a `finally` and its reset."""

    __slots__ = ("session",)

    def __init__(self):
        self.session = None


running = Running()

symbol_name = re.compile(r"^[A-Za-z_][A-Za-z0-9_.$@]*$")
# `info address NAME` of a variable in static storage, with and without debug
# info, in GDB's own (English) words; translated, it does not match and the
# symbol look-ups answer.
static_storage = re.compile(r'^Symbol "([^"]+)" is (?:static storage at address|at) '
                            r'(0x[0-9a-f]+)(?: in a file compiled without debugging)?\.$')


def os_thread_id(thread):
    """The LWP, as the core numbers threads (the pid without libthread_db)."""
    pid, lwp, _ = thread.ptid
    return lwp if lwp else pid


def live_pid(inferior):
    """The PID whose /proc/PID/mem the library may read, or 0: only a native inferior's is
    sure to be this host's process of that PID."""
    connection = getattr(inferior, "connection", None)  # GDB 13: "native", "core", "remote", ...
    if connection is None or inferior.pid <= 0 or os.environ.get("PYUNWIND_GDB_NO_PROC_MEM"):
        return 0
    try:
        return inferior.pid if connection.type == "native" else 0
    except Exception:
        swallowed.note("session")
        return 0


class Session:
    """What one command run needs of GDB; lives as long as the run."""

    def __init__(self, inferior):
        self.inferior = inferior
        self.pid = inferior.pid
        self.decoder = output.new_decoder()  # of the output written while the command runs
        self.interrupted = False
        self.keep = {}  # buffers handed to the library, by callback name
        self.threads_by_id = None  # {OS thread id: InferiorThread}, made on first use
        self.live_pid = live_pid(inferior)

    def thread(self, thread_id):
        """The thread with OS thread id `thread_id`, or None. The library asks thread by
        thread: one pass over GDB's list per command, not one per question (1,000
        threads would be a million steps)."""
        if self.threads_by_id is None:
            self.threads_by_id = {os_thread_id(t): t for t in self.inferior.threads()}
        return self.threads_by_id.get(thread_id)

    def text(self, name, value):
        buf = ctypes.create_string_buffer(value.encode("utf-8", "replace"))
        self.keep[name] = buf
        return ctypes.addressof(buf)

    # -- memory --
    def read(self, addr, buf, size):
        """1 when all `size` bytes at `addr` are in `buf`; a failed read raises
        (gdb.MemoryError, ...) or returns 0."""
        data = self.inferior.read_memory(addr, size)
        ctypes.memmove(buf, data.tobytes(), size)
        return 1

    # -- symbols --
    def symbol(self, name):
        if not symbol_name.match(name):
            return None
        # 0.1 ms, where Symbol.value() of _PyRuntime first builds its type from the
        # debug info (1 ms). The core checks what it finds there (a static of the
        # same name in the selected frame's scope would be named first).
        try:
            said = static_storage.match(
                gdb.execute("info address " + name, to_string=True).strip())
            if said and said.group(1) == name:
                return int(said.group(2), 16)
        except gdb.error:
            pass
        for lookup in (gdb.lookup_global_symbol, getattr(gdb, "lookup_static_symbol", None)):
            if lookup is None:
                continue
            try:
                sym = lookup(name)
                if sym is not None:
                    address = sym.value().address
                    if address is not None:
                        return int(address)
            except gdb.error:  # TLS or optimized-out values
                pass
            except Exception:
                swallowed.note("find_symbol")
        try:
            # Minimal symbols (e.g. _PyRuntime from .dynsym, no debug info).
            value = gdb.parse_and_eval("(unsigned long)&'%s'" % name)
            return int(value)
        except gdb.error:  # not found: silent, the core decides what to say
            return None

    # -- what GDB's CLI alone says (mappings, a core's sections); the library parses it --
    def debugger_command(self, command):
        return gdb.execute(command.decode("utf-8", "replace"), to_string=True)

    @contextlib.contextmanager
    def _on_thread(self, thread):
        """Selects `thread` if it is not the selected one, and the selected thread and frame
        again afterwards."""
        selected = gdb.selected_thread()
        try:
            selected_frame = gdb.selected_frame()
        except gdb.error:
            selected_frame = None
        switched = selected is None or selected.ptid != thread.ptid
        try:
            if switched:
                thread.switch()
            yield
        finally:
            if switched and selected is not None and selected.is_valid():
                selected.switch()
                if selected_frame is not None and selected_frame.is_valid():
                    selected_frame.select()

    def native_frames(self, thread_id):
        """GDB's backtrace of one thread: "PC\tFUNCTION\tMODULE" per frame, frame 0 first."""
        thread = self.thread(thread_id)
        if thread is None or not thread.is_valid():
            return ""
        progspace = self.inferior.progspace
        objfile_for_address = getattr(progspace, "objfile_for_address", None)  # GDB 14
        lines = []
        with self._on_thread(thread):
            frame = gdb.newest_frame()
            while frame is not None and len(lines) < MAX_NATIVE_FRAMES:
                if self.interrupted:
                    break
                pc = frame.pc()
                name = frame.name() or ""
                module = ""
                if objfile_for_address is not None:
                    try:
                        objfile = objfile_for_address(pc)
                        module = objfile.filename if objfile is not None else ""
                    except gdb.error:
                        pass
                    except Exception:
                        swallowed.note("native_frames")
                if not module:
                    module = gdb.solib_name(pc) or ""
                lines.append("%x\t%s\t%s" % (pc, name.replace("\t", " "), module))
                try:
                    frame = frame.older()
                except gdb.error:
                    break
        return "\n".join(lines)

    def stack_pointer(self, thread_id):
        """The SP of one thread's newest frame, or None."""
        thread = self.thread(thread_id)
        if thread is None or not thread.is_valid():
            return None
        try:
            with self._on_thread(thread):
                return int(gdb.newest_frame().read_register("sp")) & 0xFFFFFFFFFFFFFFFF
        except gdb.error:
            return None

    def thread_ids(self):
        return " ".join(str(os_thread_id(t)) for t in self.inferior.threads())

    def thread_name(self, thread_id):
        """InferiorThread.name: the user's name, else the OS's (comm of a live
        thread); None for a core's threads."""
        thread = self.thread(thread_id)
        return (thread.name or "") if thread is not None else ""

# pyunwind for GDB: the Python stacks of a CPython process or core file.
#
#   (gdb) source /path/to/pyunwind-gdb.py
#   (gdb) py-bt --all
#
# Loads libpyunwind_gdb.so from this file's directory (or from
# $PYUNWIND_GDB_LIBRARY) with ctypes: the library has a plain C ABI
# (pyunwind_c_api.h) and does not depend on the Python GDB embeds. This
# script is GDB glue only: it reads memory, symbols, threads, backtraces and
# CLI listings for the library, registers the commands and a frame filter,
# and tells the library the process's state; parsing, selection and every
# message are the library's (the same as in LLDB).
#
# Memory of a live local process (GDB's native target) the library reads from
# /proc/PID/mem itself; elsewhere (cores, gdbserver), and what /proc/PID/mem
# cannot read, through GDB: one Inferior.read_memory call per block.
# PYUNWIND_GDB_NO_PROC_MEM=1 forces GDB's reads.
#
# Every command is registered twice: under its own name (py-bt, ...) and as
# "pyunwind <name>", which no other script defines. CPython's own
# python3.X-gdb.py also defines py-bt, py-locals, ...; when GDB auto-loads it
# after this script (a python3.X objfile loaded later), pyunwind registers its
# commands again so that its names win (see README.md).

import codecs
import ctypes
import json
import os
import re
import sys

import gdb
from gdb.FrameDecorator import FrameDecorator


def _pyunwind_setup():
    here = os.path.dirname(os.path.realpath(__file__))
    lib_path = os.environ.get("PYUNWIND_GDB_LIBRARY") or os.path.join(here, "libpyunwind_gdb.so")
    try:
        lib = ctypes.CDLL(lib_path)
    except OSError as e:
        raise gdb.GdbError("pyunwind: cannot load %s: %s" % (lib_path, e))

    READ = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                            ctypes.c_uint64)
    SYMBOL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p,
                              ctypes.POINTER(ctypes.c_uint64))
    # c_void_p, not c_char_p: a callback cannot hand back a Python-owned
    # char*; it returns the address of a buffer the session keeps alive.
    TEXT = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
    COMMAND_TEXT = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)
    THREAD_TEXT = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)
    WRITE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)
    FLAG = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)

    class Callbacks(ctypes.Structure):
        _fields_ = [
            ("ctx", ctypes.c_void_p),
            ("read_memory", READ),
            ("find_symbol", SYMBOL),
            ("debugger_command", COMMAND_TEXT),
            ("thread_ids", TEXT),
            ("native_frames", THREAD_TEXT),
            ("debugger_version", TEXT),
            ("thread_name", THREAD_TEXT),
            ("write_output", WRITE),
            ("live_pid", ctypes.c_uint64),
            ("interrupted", FLAG),
        ]

    lib.pyunwind_abi_version.restype = ctypes.c_int
    lib.pyunwind_abi_version.argtypes = []
    lib.pyunwind_commands.restype = ctypes.c_char_p
    lib.pyunwind_commands.argtypes = []

    class Stop(ctypes.Structure):
        _fields_ = [
            ("state", ctypes.c_int32),
            ("process", ctypes.c_uint64),
            ("instance", ctypes.c_uint64),
            ("stop_id", ctypes.c_uint64),
            ("selected_thread_id", ctypes.c_int64),
        ]
    STOPPED, NO_PROCESS, RUNNING = 0, 1, 2

    # The strings the library returns are malloc'd: c_void_p, freed by take_text.
    lib.pyunwind_run_command_at.restype = ctypes.c_void_p
    lib.pyunwind_run_command_at.argtypes = [ctypes.POINTER(Callbacks), ctypes.c_char_p,
                                            ctypes.c_char_p, ctypes.POINTER(Stop), ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int64),
                                            ctypes.POINTER(ctypes.c_int)]
    lib.pyunwind_python_frames_by_native_frame_at.restype = ctypes.c_void_p
    lib.pyunwind_python_frames_by_native_frame_at.argtypes = [
        ctypes.POINTER(Callbacks), ctypes.POINTER(Stop), ctypes.POINTER(ctypes.c_int)]
    lib.pyunwind_free.restype = None
    lib.pyunwind_free.argtypes = [ctypes.c_void_p]
    lib.pyunwind_prepare.restype = None
    lib.pyunwind_prepare.argtypes = []
    lib.pyunwind_python_in_module_files.restype = ctypes.c_int
    lib.pyunwind_python_in_module_files.argtypes = [ctypes.POINTER(ctypes.c_char_p),
                                                    ctypes.c_size_t]

    if lib.pyunwind_abi_version() != 9:
        raise gdb.GdbError("pyunwind: %s has ABI version %d, this script wants 9"
                           % (lib_path, lib.pyunwind_abi_version()))
    lib.pyunwind_prepare()

    def take_text(result):
        if not result:
            raise gdb.GdbError("pyunwind: out of memory")
        try:
            return ctypes.string_at(result).decode("utf-8", "replace")
        finally:
            lib.pyunwind_free(result)

    libc = ctypes.CDLL(None)
    libc.strlen.restype = ctypes.c_size_t
    libc.strlen.argtypes = [ctypes.c_void_p]
    # gdb.write takes 64 KiB at a time: each piece is copied four times on its way
    # out (bytes, str, GDB's string, its printf), and a 1 MiB piece is both fresh
    # memory each time and 16 times a pipe's buffer. py-bt --all on 3,069 frames
    # (443 KB) to a pipe: 1 MiB pieces 2.8 ms, 64 KiB 1.3-1.6 ms (bench/README.md).
    WRITE_CHUNK = 1 << 16

    def new_decoder():
        """UTF-8 decoding of output that comes in pieces: decoding them one after the
        other gives what one decode of the whole gives (a character cut between two
        pieces included)."""
        return codecs.getincrementaldecoder("utf-8")("replace")

    def write_pieces(text, size, decoder, final):
        """gdb.write of `size` bytes at address `text`, WRITE_CHUNK at a time: a large
        output (py-tasks --tree on 100,000 tasks) is never one Python bytes, one str and
        one GDB copy at once. `final`: the decoder gives back what it holds (the end of
        a character cut between two pieces)."""
        start = 0
        while True:  # once at least: the decoder may hold the end of a piece before
            n = min(WRITE_CHUNK, size - start)
            last = start + n >= size
            gdb.write(decoder.decode(ctypes.string_at(text + start, n), final and last))
            if last:
                break
            start += n

    def write_text(result, decoder):
        """Writes a library string (write_pieces), then frees it."""
        if not result:
            raise gdb.GdbError("pyunwind: out of memory")
        try:
            write_pieces(result, libc.strlen(result), decoder, True)
        finally:
            lib.pyunwind_free(result)

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

    class Session:
        """What one command run needs of GDB; lives as long as the run."""

        def __init__(self, inferior):
            self.inferior = inferior
            self.pid = inferior.pid
            self.decoder = new_decoder()  # of the output written while the command runs
            self.interrupted = False
            self.keep = {}  # buffers handed to the library, by callback name
            self.threads_by_id = None  # {OS thread id: InferiorThread}, made on first use
            # The PID whose /proc/PID/mem the library may read: only a native
            # inferior's is sure to be this host's process of that PID.
            self.live_pid = 0
            try:
                conn = inferior.connection  # GDB 13: "native", "core", "remote", ...
                if conn is not None and conn.type == "native" and self.pid > 0 \
                        and not os.environ.get("PYUNWIND_GDB_NO_PROC_MEM"):
                    self.live_pid = self.pid
            except Exception:
                self.live_pid = 0

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
                except Exception:  # gdb.error; TLS or optimized-out values
                    pass
            try:
                # Minimal symbols (e.g. _PyRuntime from .dynsym, no debug info).
                value = gdb.parse_and_eval("(unsigned long)&'%s'" % name)
                return int(value)
            except Exception:  # not found: silent, the core decides what to say
                return None

        # -- what GDB's CLI alone says (mappings, a core's sections); the library parses it --
        def debugger_command(self, command):
            return gdb.execute(command.decode("utf-8", "replace"), to_string=True)

        def native_frames(self, thread_id):
            """GDB's backtrace of one thread: "PC\tFUNCTION\tMODULE" per frame, frame 0 first.
            Switches to the thread if it is not the selected one, and back."""
            thread = self.thread(thread_id)
            if thread is None or not thread.is_valid():
                return ""
            selected = gdb.selected_thread()
            try:
                selected_frame = gdb.selected_frame()
            except gdb.error:
                selected_frame = None
            switched = selected is None or selected.ptid != thread.ptid
            progspace = self.inferior.progspace
            lines = []
            try:
                if switched:
                    thread.switch()
                frame = gdb.newest_frame()
                while frame is not None and len(lines) < 4096:
                    if self.interrupted:
                        break
                    pc = frame.pc()
                    name = frame.name() or ""
                    module = ""
                    try:
                        objfile = progspace.objfile_for_address(pc)
                        module = objfile.filename if objfile is not None else ""
                    except Exception:
                        module = gdb.solib_name(pc) or ""
                    if not module:
                        module = gdb.solib_name(pc) or ""
                    lines.append("%x\t%s\t%s" % (pc, name.replace("\t", " "), module))
                    try:
                        frame = frame.older()
                    except gdb.error:
                        break
            finally:
                if switched and selected is not None and selected.is_valid():
                    selected.switch()
                if selected_frame is not None and selected_frame.is_valid():
                    selected_frame.select()
            return "\n".join(lines)

        def thread_ids(self):
            return " ".join(str(os_thread_id(t)) for t in self.inferior.threads())

        def thread_name(self, thread_id):
            """InferiorThread.name: the user's name, else the OS's (comm of a live
            thread); None for a core's threads."""
            thread = self.thread(thread_id)
            return (thread.name or "") if thread is not None else ""

    # The callbacks see the running session through this one slot; commands
    # run one at a time on GDB's main thread.
    current = [None]

    def guarded(failed, method):
        """A callback running `method` of the current session; `failed` when
        there is none, after Ctrl-C (which stops the command) or on an error."""
        def callback(_ctx, *args):
            session = current[0]
            if session is None or session.interrupted:
                return failed
            try:
                return method(session, *args)
            except KeyboardInterrupt:
                session.interrupted = True
            except Exception:
                pass
            return failed
        return callback

    def text_of(name):
        return lambda session, *args: session.text(name, getattr(session, name)(*args))

    def write_output(session, text, size):
        write_pieces(text, size, session.decoder, False)

    def symbol(session, name, out):
        address = session.symbol(name.decode("utf-8", "replace"))
        if address:
            out[0] = address
        return 1 if address else 0

    # `pyunwind version` runs with no process too: no session needed.
    debugger_version_text = ctypes.create_string_buffer(("GDB " + gdb.VERSION).encode("utf-8"))

    def note_interrupt():
        """Ctrl-C came: it stops the running command, if any. True when there is one."""
        session = current[0]
        if session is not None:
            session.interrupted = True
        return session is not None

    # The `debugger_version` callback: a builtin, which runs no Python code, so Ctrl-C's
    # KeyboardInterrupt cannot be raised in it and make ctypes return garbage; it is asked
    # also with no session, where nothing would drop a garbage answer. The `get` of a dict
    # that holds the text too, which lives as long as the callback.
    debugger_version = {None: ctypes.addressof(debugger_version_text),
                        "text": debugger_version_text}.get

    def interrupted(_ctx):
        """The `interrupted` callback: 1 once Ctrl-C stopped the running command. GDB raises
        Ctrl-C's KeyboardInterrupt in the first Python code that runs after it, which is often
        this callback (the library asks every few thousand steps, also where it calls nothing
        else). One raised before the try reaches `unraisable` below, which notes it, and ctypes
        returns whatever the return slot held: the library asks again a few thousand steps
        later. No state lives here: a generator answered before, and a second KeyboardInterrupt
        raised in its handler ended it, after which every command of the GDB session said
        "pyunwind: interrupted" (tests/e2e/gdb_ctrl_c_storm.py, on a loaded machine)."""
        try:
            session = current[0]
            return 1 if session is not None and session.interrupted else 0
        except KeyboardInterrupt:
            return 1 if note_interrupt() else 0

    # ctypes hands an exception that escapes a callback to sys.unraisablehook, prints it,
    # and returns to the library whatever its return slot held. Ctrl-C's KeyboardInterrupt
    # escapes when GDB raises it at a callback's first instruction, before its try (the
    # Python that runs first after Ctrl-C: a read, the output, a thread's name). Taken here,
    # it stops the running command; the library asks `interrupted` after every callback and
    # drops that one's answer.
    previous_unraisablehook = sys.unraisablehook

    def unraisable(info):
        if not (issubclass(info.exc_type, KeyboardInterrupt) and note_interrupt()):
            previous_unraisablehook(info)

    def undo_unraisable():
        if sys.unraisablehook is unraisable:
            sys.unraisablehook = previous_unraisablehook

    sys.unraisablehook = unraisable

    callbacks = Callbacks(None, READ(guarded(0, Session.read)), SYMBOL(guarded(0, symbol)),
                          COMMAND_TEXT(guarded(None, text_of("debugger_command"))),
                          TEXT(guarded(None, text_of("thread_ids"))),
                          THREAD_TEXT(guarded(None, text_of("native_frames"))),
                          TEXT(debugger_version),
                          THREAD_TEXT(guarded(None, text_of("thread_name"))),
                          WRITE(guarded(None, write_output)), 0, FLAG(interrupted))

    def selected_thread_id():
        try:
            thread = gdb.selected_thread()
        except gdb.error:
            return -1
        if thread is None:
            return -1
        return os_thread_id(thread)

    def is_terminal(from_tty):
        try:
            return bool(from_tty and gdb.parameter("style enabled") and os.isatty(1))
        except Exception:
            return False

    # The stop id the library keys what it kept on (py-up / py-down's
    # selection, the runtime, pages, code objects, the walk): bumped on every
    # resume and stop, and whenever the memory or the loaded files may have
    # changed (`set var`, an inferior call, a new objfile, a new core file).
    generation = [0]

    def target_instance(inferior):
        """The library's id of what `inferior` debugs: its number and its
        connection's (a new core file or attach makes a new connection)."""
        connection = getattr(inferior, "connection_num", None) or 0
        return (connection << 32) | inferior.num

    def select_native_frame(index):
        frame = gdb.newest_frame()
        for _ in range(index):
            older = frame.older()
            if older is None:
                return
            frame = older
        frame.select()

    def process_state(inferior):
        if inferior is None:
            return NO_PROCESS
        try:
            threads = inferior.threads()
        except gdb.error:
            threads = ()
        if inferior.pid <= 0 and not threads:
            return NO_PROCESS
        # `continue &`, non-stop mode: memory changes under the reads.
        if any(t.is_valid() and t.is_running() for t in threads):
            return RUNNING
        return STOPPED

    def run(name, argument, from_tty):
        if current[0] is not None:
            raise gdb.GdbError("pyunwind: a pyunwind command is already running")
        inferior = gdb.selected_inferior()
        state = process_state(inferior)
        session = Session(inferior) if state == STOPPED else None
        stop = Stop(state, max(inferior.pid, 0) if inferior else 0,
                    target_instance(inferior) if inferior else 0, generation[0],
                    selected_thread_id())
        failed = ctypes.c_int(1)
        native_frame = ctypes.c_int64(-1)
        try:  # current[0] is set inside: a Ctrl-C anywhere here must not leave it set
            current[0] = session
            callbacks.live_pid = session.live_pid if session is not None else 0
            result = lib.pyunwind_run_command_at(
                ctypes.byref(callbacks), name.encode(), (argument or "").encode("utf-8"),
                ctypes.byref(stop), 1 if is_terminal(from_tty) else 0,
                ctypes.byref(native_frame), ctypes.byref(failed))
        finally:
            current[0] = None
        if session is not None and session.interrupted:
            lib.pyunwind_free(result)
            raise gdb.GdbError("pyunwind: interrupted")
        if failed.value:
            # GDB prints it as is, on one line
            raise gdb.GdbError(take_text(result).rstrip("\n"))
        if native_frame.value >= 0:
            try:
                select_native_frame(native_frame.value)
            except gdb.error:
                pass
            except BaseException:
                lib.pyunwind_free(result)
                raise
        write_text(result, session.decoder if session is not None else new_decoder())

    # Whether each inferior has Python, decided once (python_in); forgotten
    # when its files change (a dlopen'd libpython, another core).
    has_python = {}

    def on_change(_event=None):
        generation[0] += 1

    def on_files_change(_event=None):
        generation[0] += 1
        has_python.clear()

    def python_in(inferior):
        """True / False when the files GDB has loaded say whether `inferior`
        runs Python (a libpython or python executable, or a string table naming
        _PyRuntime: the library reads them); None when GDB has no executable (a
        core file alone) or a file cannot be read: the library, which can scan
        memory, decides."""
        try:
            if inferior.progspace is None or inferior.progspace.filename is None:
                return None
            # Not the separate debug files (libc's string table alone is 130 KB), nor
            # the vDSO GDB names "system-supplied DSO at 0x...": a program that runs
            # Python exports _PyRuntime, which extension modules link against.
            paths = [o.filename.encode("utf-8", "surrogateescape")
                     for o in inferior.progspace.objfiles()
                     if o.is_valid() and o.filename and o.owner is None
                     and os.path.isabs(o.filename)]
        except Exception:
            return None
        answer = lib.pyunwind_python_in_module_files((ctypes.c_char_p * len(paths))(*paths),
                                                     len(paths))
        return None if answer < 0 else answer == 1

    def known_python(inferior, instance):
        """python_in(inferior), decided once per target instance (has_python)."""
        if instance not in has_python:
            has_python[instance] = python_in(inferior)
        return has_python[instance]

    # -- plain `bt`: the Python frames each eval-loop frame runs, next to it --
    decorator_cache = {}

    def python_frames_by_level():
        """{native frame level: "qualname at file:line, ..."} of the selected
        thread, asked of the library once per stop and thread; {} at once in
        an inferior without Python."""
        inferior = gdb.selected_inferior()
        if current[0] is not None or process_state(inferior) != STOPPED:
            return {}
        instance = target_instance(inferior)
        if known_python(inferior, instance) is False:
            return {}
        key = (generation[0], instance, inferior.pid, selected_thread_id())
        if key not in decorator_cache:
            decorator_cache.clear()
            session = Session(inferior)
            stop = Stop(STOPPED, max(inferior.pid, 0), instance, generation[0],
                        selected_thread_id())
            found = ctypes.c_int(-1)
            try:
                current[0] = session
                callbacks.live_pid = session.live_pid
                text = take_text(lib.pyunwind_python_frames_by_native_frame_at(
                    ctypes.byref(callbacks), ctypes.byref(stop), ctypes.byref(found)))
                decorator_cache[key] = {int(k): v for k, v in json.loads(text).items()}
            except Exception:
                decorator_cache[key] = {}
            finally:
                current[0] = None
            if session.interrupted:  # Ctrl-C: this bt shows none, the next one asks again
                return decorator_cache.pop(key, {})
            if found.value >= 0 and has_python[instance] is None:
                has_python[instance] = found.value == 1  # what the library found, once
        return decorator_cache[key]

    class PythonFramesDecorator(FrameDecorator):
        def __init__(self, base, python_frames):
            super().__init__(base)
            self._python_frames = python_frames

        def function(self):
            name = super().function()
            if not isinstance(name, str):
                return name
            return "%s [Python: %s]" % (name, self._python_frames)

    class PythonFramesFilter:
        """Adds the Python frames an eval-loop frame runs to its line in bt."""

        def __init__(self):
            self.name = "pyunwind"
            self.priority = 100
            self.wanted = True  # what `enable/disable frame-filter` last said
            # {target: True / False / None (not yet known)}: whether it runs Python, as
            # decided once (python_in); tests/e2e/frame_filter_test.cc reads it.
            self.python_by_target = has_python

        # GDB prints a `bt` its own way only when no frame filter is enabled: a filter that
        # passes every frame through unchanged still costs the Python printing of each frame.
        # So the filter is not enabled in an inferior known to run no Python.
        @property
        def enabled(self):
            if not self.wanted:
                return False
            try:
                inferior = gdb.selected_inferior()
                return known_python(inferior, target_instance(inferior)) is not False
            except Exception:
                return True

        @enabled.setter
        def enabled(self, value):
            self.wanted = bool(value)

        def filter(self, frame_iter):
            mapping = python_frames_by_level()
            if not mapping:
                return frame_iter

            def decorate(decorator):
                try:
                    level = decorator.inferior_frame().level()
                except Exception:
                    return decorator
                frames = mapping.get(level)
                return PythonFramesDecorator(decorator, frames) if frames else decorator

            return map(decorate, frame_iter)

    # gdb.Command as GDB made it (when the script is sourced again, gdb.Command is the
    # guard below, which keeps the original).
    base_command = getattr(gdb.Command, "pyunwind_base", gdb.Command)

    def make_command(gdb_name, name, summary, help_text):
        class PyunwindCommand(base_command):
            __doc__ = (summary + "\n\n" + help_text).strip() or name

            def __init__(self):
                super().__init__(gdb_name, gdb.COMMAND_STACK, gdb.COMPLETE_NONE)

            def invoke(self, argument, from_tty):
                self.dont_repeat()
                run(name, argument, from_tty)

        PyunwindCommand.__name__ = "Pyunwind_" + re.sub(r"\W", "_", gdb_name)
        return PyunwindCommand()

    class PyunwindPrefix(base_command):
        """pyunwind: the Python stacks of a CPython process or core file.

Each pyunwind command can also be run as "pyunwind COMMAND", a name no
other script (e.g. CPython's python3.X-gdb.py) can take over."""

        def __init__(self):
            super().__init__("pyunwind", gdb.COMMAND_STACK, gdb.COMPLETE_NONE, True)

    commands = json.loads(lib.pyunwind_commands().decode("utf-8"))
    registered = {}

    # PYUNWIND_GDB_PREFIX_ONLY=1 leaves the plain names (py-bt, py-list, ...)
    # to CPython's python3.X-gdb.py; pyunwind's are then only "pyunwind py-bt", ...
    prefix_only = os.environ.get("PYUNWIND_GDB_PREFIX_ONLY", "") not in ("", "0")

    def register_all():
        registered["prefix"] = PyunwindPrefix()
        for c in commands:
            if not prefix_only and not c.get("prefix_only"):
                registered[c["name"]] = make_command(c["name"], c["name"], c["summary"], c["help"])
            registered["pyunwind " + c["name"]] = make_command(
                "pyunwind " + c["name"], c["name"], c["summary"], c["help"])

    # CPython's python3.X-gdb.py is auto-loaded when its objfile is loaded (file,
    # attach, a core's executable, libpython), which may be after this script, and
    # defines py-bt, py-list, ... again; for the files of GDB's command line (-p PID,
    # EXE) GDB runs it after every init file, with no event after it. So, while pyunwind
    # has the plain names, gdb.Command is a subclass whose constructor registers the
    # other script's command and then pyunwind's again under the same name: whoever
    # loads later, and whenever, the plain names stay pyunwind's. The other script's
    # commands under other names and its pretty-printers are untouched.
    plain = {c["name"]: c for c in commands if not c.get("prefix_only")}

    class GuardedCommand(base_command):
        pyunwind_base = base_command

        def __init__(self, name, *args, **kwargs):
            # Not super(): a class made from the original gdb.Command (a script
            # loaded before this one) may call gdb.Command.__init__ too.
            base_command.__init__(self, name, *args, **kwargs)
            c = plain.get(name)
            if c is not None:
                registered[name] = make_command(name, name, c["summary"], c["help"])

    register_all()
    gdb.Command = base_command if prefix_only else GuardedCommand
    gdb.events.new_objfile.connect(on_files_change)
    # What a second `source` undoes: the event handlers, the unraisable hook.
    undo = [undo_unraisable, lambda: gdb.events.new_objfile.disconnect(on_files_change)]
    for name, handler in (("cont", on_change), ("stop", on_change), ("exited", on_change),
                          ("memory_changed", on_change), ("register_changed", on_change),
                          ("inferior_call", on_change), ("clear_objfiles", on_files_change),
                          ("new_inferior", on_files_change),
                          ("inferior_deleted", on_files_change)):
        registry = getattr(gdb.events, name, None)
        if registry is not None:
            registry.connect(handler)
            undo.append(lambda registry=registry, handler=handler: registry.disconnect(handler))
    frame_filter = PythonFramesFilter()
    gdb.frame_filters[frame_filter.name] = frame_filter
    return (lib, callbacks, registered, commands, undo)


def _pyunwind_install():
    g = globals()
    old = g.get("_pyunwind_state")
    if old is not None:  # sourced again: drop the old event handlers and hook
        for undo in old[-1]:
            try:
                undo()
            except Exception:
                pass
    g["_pyunwind_state"] = _pyunwind_setup()


_pyunwind_install()

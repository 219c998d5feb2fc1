"""Running the library's commands in GDB: one call of pyunwind_run_command_at per command,
with the session its callbacks read through, the stop it is at, and its output printed."""

import ctypes
import os
import shlex

import gdb

from . import abi
from . import output
from . import process
from . import swallowed
from .session import Session, running

# `pyunwind version -v` adds how many exceptions the script swallowed (swallowed.py),
# which only the script knows, after what the library's version command prints.
VERBOSE_COMMAND = "version"
VERBOSE_OPTIONS = ("-v", "--verbose")
VERBOSE_HELP = "  -v, --verbose  also how many exceptions the GDB script swallowed (GDB)\n"


def is_terminal(from_tty):
    try:
        return bool(from_tty and gdb.parameter("style enabled") and os.isatty(1))
    except RuntimeError:  # gdb.error, or no `style` in GDB before 10
        return False
    except Exception:
        swallowed.note("commands")
        return False


def select_native_frame(index):
    frame = gdb.newest_frame()
    for _ in range(index):
        older = frame.older()
        if older is None:
            return
        frame = older
    frame.select()


def take_verbose(argument):
    """(`argument` without VERBOSE_OPTIONS, whether it had one)."""
    words = gdb.string_to_argv(argument or "")
    rest = [w for w in words if w not in VERBOSE_OPTIONS]
    if len(rest) == len(words):
        return argument, False
    if "--json" in rest:
        raise gdb.GdbError("pyunwind: %s: -v is for the text form, not --json" % VERBOSE_COMMAND)
    return " ".join(shlex.quote(w) for w in rest), True


class Runner:
    """Runs the library's commands: `run` is what each registered gdb.Command invokes."""

    def __init__(self, lib, callbacks, stop_id):
        self._lib = lib
        self._callbacks = callbacks
        self._stop_id = stop_id

    def run(self, name, argument, from_tty):
        verbose = False
        if name == VERBOSE_COMMAND:
            argument, verbose = take_verbose(argument)
        self.run_library(name, argument, from_tty)
        if verbose:
            gdb.write(swallowed.summary() + "\n")

    def run_library(self, name, argument, from_tty):
        lib = self._lib
        if running.session is not None:
            raise gdb.GdbError("pyunwind: a pyunwind command is already running")
        inferior = gdb.selected_inferior()
        state = process.process_state(inferior)
        session = Session(inferior) if state == abi.STOPPED else None
        stop = process.stop(state, inferior, self._stop_id.value)
        failed = ctypes.c_int(1)
        native_frame = ctypes.c_int64(-1)
        try:  # running.session is set inside: a Ctrl-C anywhere here must not leave it set
            running.session = session
            self._callbacks.live_pid = session.live_pid if session is not None else 0
            result = lib.pyunwind_run_command_at(
                ctypes.byref(self._callbacks), name.encode(), (argument or "").encode("utf-8"),
                ctypes.byref(stop), 1 if is_terminal(from_tty) else 0,
                ctypes.byref(native_frame), ctypes.byref(failed))
        finally:
            running.session = None
        if session is not None and session.interrupted:
            lib.pyunwind_free(result)
            raise gdb.GdbError("pyunwind: interrupted")
        if failed.value:
            # GDB prints it as is, on one line
            raise gdb.GdbError(output.take_text(lib, result).rstrip("\n"))
        if native_frame.value >= 0:
            try:
                select_native_frame(native_frame.value)
            except gdb.error:
                pass
            except BaseException:
                lib.pyunwind_free(result)
                raise
        output.write_text(lib, result,
                          session.decoder if session is not None else output.new_decoder())

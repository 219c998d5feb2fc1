"""The callbacks the library calls while it runs (abi.Callbacks): each runs a method of the
running session (session.running) and answers its failure value when there is none, after
Ctrl-C (which stops the command) or on an error. An error that is not GDB's gdb.error is
counted (swallowed.py)."""

import ctypes

import gdb

from . import abi
from . import interrupt
from . import output
from . import swallowed
from .session import Session, running


def guarded(place, failed, method):
    """The callback `place` of the C ABI, running `method(session, *args)`."""
    def callback(_ctx, *args):
        session = running.session
        if session is None or session.interrupted:
            return failed
        try:
            return method(session, *args)
        except KeyboardInterrupt:
            session.interrupted = True
        except gdb.error:
            pass  # GDB says no (unreadable memory, a failed CLI command): `failed` says so
        except Exception:
            swallowed.note(place)
        return failed
    return callback


def text_of(name):
    """A callback answering the text of Session.`name` in a buffer the session keeps."""
    return lambda session, *args: session.text(name, getattr(session, name)(*args))


def write_output(session, text, size):
    output.write_pieces(text, size, session.decoder, False)


def find_symbol(session, name, out):
    address = session.symbol(name.decode("utf-8", "replace"))
    if address:
        out[0] = address
    return 1 if address else 0


def debugger_version():
    """The `debugger_version` callback: a builtin, which runs no Python code, so Ctrl-C's
    KeyboardInterrupt cannot be raised in it and make ctypes return garbage; it is asked also
    with no session (`pyunwind version` runs with no process), where nothing would drop a
    garbage answer. The `get` of a dict that holds the text too, which lives as long as the
    callback."""
    text = ctypes.create_string_buffer(("GDB " + gdb.VERSION).encode("utf-8"))
    return {None: ctypes.addressof(text), "text": text}.get


def stack_pointer(session, thread_id, out):
    sp = session.stack_pointer(thread_id)
    if sp:
        out[0] = sp
    return 1 if sp else 0


def make():
    """The callbacks to hand the library; live_pid is set per run."""
    return abi.Callbacks(
        None,
        abi.READ(guarded("read_memory", 0, Session.read)),
        abi.SYMBOL(guarded("find_symbol", 0, find_symbol)),
        abi.COMMAND_TEXT(guarded("debugger_command", None, text_of("debugger_command"))),
        abi.TEXT(guarded("thread_ids", None, text_of("thread_ids"))),
        abi.THREAD_TEXT(guarded("native_frames", None, text_of("native_frames"))),
        abi.TEXT(debugger_version()),
        abi.THREAD_TEXT(guarded("thread_name", None, text_of("thread_name"))),
        abi.WRITE(guarded("write_output", None, write_output)),
        0,
        abi.FLAG(interrupt.interrupted),
        abi.THREAD_VALUE(guarded("stack_pointer", 0, stack_pointer)))

"""Ctrl-C while the library runs a command: GDB raises KeyboardInterrupt in the first Python
code that runs after it, which marks the running session interrupted; the library asks the
`interrupted` callback every few thousand steps and after every other callback, and stops.

No state lives here across Ctrl-Cs: `interrupted` was a generator's send, and a second
KeyboardInterrupt raised in its handler ended the generator, after which every command of the
GDB session said "pyunwind: interrupted" (tests/e2e/gdb_ctrl_c_storm.py, on a loaded machine)."""

import sys

from .session import running


def note_interrupt():
    """Ctrl-C came: it stops the running command, if any. True when there is one."""
    session = running.session
    if session is not None:
        session.interrupted = True
    return session is not None


def interrupted(_ctx):
    """The `interrupted` callback: 1 once Ctrl-C stopped the running command. GDB raises
    Ctrl-C's KeyboardInterrupt in the first Python code that runs after it, which is often
    this callback (the library asks every few thousand steps, also where it calls nothing
    else). One raised before the try reaches UnraisableHook below, which notes it, and ctypes
    returns whatever the return slot held: the library asks again a few thousand steps
    later."""
    try:
        session = running.session
        return 1 if session is not None and session.interrupted else 0
    except KeyboardInterrupt:
        return 1 if note_interrupt() else 0


class UnraisableHook:
    """ctypes hands an exception that escapes a callback to sys.unraisablehook, prints it,
    and returns to the library whatever its return slot held. Ctrl-C's KeyboardInterrupt
    escapes when GDB raises it at a callback's first instruction, before its try (the
    Python that runs first after Ctrl-C: a read, the output, a thread's name). Taken here,
    it stops the running command; the library asks `interrupted` after every callback and
    drops that one's answer. Other exceptions go on to the hook before this one.

    Python 3.6 and 3.7 (GDB 8.2 of RHEL 8) have no sys.unraisablehook: there ctypes prints
    such a KeyboardInterrupt and it is lost: the command runs on."""

    def __init__(self):
        self.previous = None

    def install(self):
        self.previous = getattr(sys, "unraisablehook", None)
        if self.previous is not None:
            sys.unraisablehook = self.hook

    def uninstall(self):
        if self.previous is not None and sys.unraisablehook == self.hook:
            sys.unraisablehook = self.previous

    def hook(self, info):
        if not (issubclass(info.exc_type, KeyboardInterrupt) and note_interrupt()):
            self.previous(info)

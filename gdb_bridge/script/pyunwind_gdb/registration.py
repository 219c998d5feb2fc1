"""The gdb.Command of each library command (pyunwind_commands()), under its own name (py-bt,
...) and as "pyunwind <name>", which no other script defines; and the gdb.Command guard that
keeps the plain names pyunwind's when CPython's python3.X-gdb.py defines them again.

PYUNWIND_GDB_PREFIX_ONLY=1 leaves the plain names (py-bt, py-list, ...) to CPython's
python3.X-gdb.py; pyunwind's are then only "pyunwind py-bt", ..., and gdb.Command is left
as GDB made it."""

import json
import os
import re

import gdb

from . import commands


def prefix_only():
    return os.environ.get("PYUNWIND_GDB_PREFIX_ONLY", "") not in ("", "0")


def original_command():
    """gdb.Command as GDB made it: when the script is sourced again, gdb.Command is the
    guard below, which keeps the original."""
    return getattr(gdb.Command, "pyunwind_base", gdb.Command)


class Registration:
    """Every command of the library, registered in GDB; `registered` keeps each object."""

    def __init__(self, lib, runner):
        self.runner = runner
        self.base = original_command()
        self.commands = json.loads(lib.pyunwind_commands().decode("utf-8"))
        self.prefix_only = prefix_only()
        self.registered = {}
        self.guard = None  # the gdb.Command this registration put in place, if not GDB's

    def make_command(self, gdb_name, command):
        """A gdb.Command named `gdb_name` that runs the library's `command`."""
        name, runner = command["name"], self.runner
        help_text = command["help"]
        if name == commands.VERBOSE_COMMAND:
            help_text += commands.VERBOSE_HELP

        class PyunwindCommand(self.base):
            __doc__ = (command["summary"] + "\n\n" + help_text).strip() or name

            def __init__(self):
                super().__init__(gdb_name, gdb.COMMAND_STACK, gdb.COMPLETE_NONE)

            def invoke(self, argument, from_tty):
                self.dont_repeat()
                runner.run(name, argument, from_tty)

        PyunwindCommand.__name__ = "Pyunwind_" + re.sub(r"\W", "_", gdb_name)
        return PyunwindCommand()

    def register_all(self):
        self.registered["prefix"] = make_prefix(self.base)
        for c in self.commands:
            if not self.prefix_only and not c.get("prefix_only"):
                self.registered[c["name"]] = self.make_command(c["name"], c)
            self.registered["pyunwind " + c["name"]] = self.make_command("pyunwind " + c["name"], c)
        if not self.prefix_only:
            self.guard = self.guarded_command()
        gdb.Command = self.guard or self.base

    def restore_command(self):
        """gdb.Command as GDB made it again, unless another script has replaced the guard."""
        if self.guard is not None and gdb.Command is self.guard:
            gdb.Command = self.base

    def guarded_command(self):
        """CPython's python3.X-gdb.py is auto-loaded when its objfile is loaded (file,
        attach, a core's executable, libpython), which may be after this script, and
        defines py-bt, py-list, ... again; for the files of GDB's command line (-p PID,
        EXE) GDB runs it after every init file, with no event after it. So, while pyunwind
        has the plain names, gdb.Command is this subclass, whose constructor registers the
        other script's command and then pyunwind's again under the same name: whoever
        loads later, and whenever, the plain names stay pyunwind's. The other script's
        commands under other names and its pretty-printers are untouched."""
        base = self.base
        plain = {c["name"]: c for c in self.commands if not c.get("prefix_only")}
        registration = self

        class GuardedCommand(base):
            pyunwind_base = base

            def __init__(self, name, *args, **kwargs):
                # Not super(): a class made from the original gdb.Command (a script
                # loaded before this one) may call gdb.Command.__init__ too.
                base.__init__(self, name, *args, **kwargs)
                c = plain.get(name)
                if c is not None:
                    registration.registered[name] = registration.make_command(name, c)

        return GuardedCommand


def make_prefix(base):
    class PyunwindPrefix(base):
        """pyunwind: the Python stacks of a CPython process or core file.

Each pyunwind command can also be run as "pyunwind COMMAND", a name no
other script (e.g. CPython's python3.X-gdb.py) can take over."""

        def __init__(self):
            super().__init__("pyunwind", gdb.COMMAND_STACK, gdb.COMPLETE_NONE, True)

    return PyunwindPrefix()

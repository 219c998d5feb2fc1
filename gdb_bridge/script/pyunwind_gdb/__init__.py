"""pyunwind for GDB: the Python stacks of a CPython process or core file.

The script pyunwind-gdb.py imports this package from its own directory and calls
install(), which loads libpyunwind_gdb.so from there (or from $PYUNWIND_GDB_LIBRARY) with
ctypes: the library has a plain C ABI (pyunwind_c_api.h) and does not depend on the Python
GDB embeds. This package is GDB glue only: it reads memory, symbols, threads, backtraces and
CLI listings for the library, registers the commands and a frame filter, and tells the
library the process's state; parsing, selection and every message are the library's (the
same as in LLDB).

Memory of a live local process (GDB's native target) the library reads from /proc/PID/mem
itself; elsewhere (cores, gdbserver), and what /proc/PID/mem cannot read, through GDB: one
Inferior.read_memory call per block. PYUNWIND_GDB_NO_PROC_MEM=1 forces GDB's reads.

Every command is registered twice: under its own name (py-bt, ...) and as
"pyunwind <name>", which no other script defines. CPython's own python3.X-gdb.py also
defines py-bt, py-locals, ...; when GDB auto-loads it after this script (a python3.X objfile
loaded later), pyunwind registers its commands again so that its names win
(registration.py, gdb_bridge/README.md).

  abi           the ctypes mirror of the C ABI, and loading the library
  session       what one run needs of GDB (memory, symbols, threads, backtraces)
  callbacks     the library's callbacks, each a method of the running session
  interrupt     Ctrl-C while the library runs
  process       the process's state and stop id, as the library is told them
  commands      running a library command and printing its output
  registration  the gdb.Commands, and the guard that keeps their names pyunwind's
  frame_filter  the Python frames next to their eval-loop frames in plain `bt`
  output        the library's text printed in pieces
  swallowed     the count of exceptions swallowed, for `pyunwind version -v`
"""

import os

import gdb

from . import abi
from . import callbacks
from . import commands
from . import frame_filter
from . import interrupt
from . import process
from . import registration
from . import swallowed
from .abi import LoadError

# What install() set up, kept on this module for uninstall(): the library and the
# callbacks it holds, the registered commands, and the functions that undo the rest.
installed = None


def install(directory):
    """Loads the library beside the script (`directory`) and sets pyunwind up in GDB: the
    commands, the frame filter, the event handlers, Ctrl-C's hook. Raises LoadError (one
    line to print) when the library cannot be used."""
    global installed
    uninstall()
    path = os.environ.get("PYUNWIND_GDB_LIBRARY") or os.path.join(directory, "libpyunwind_gdb.so")
    lib = abi.load(path)
    lib.pyunwind_prepare()

    unraisable = interrupt.UnraisableHook()
    unraisable.install()
    library_callbacks = callbacks.make()
    stop_id = process.StopId()
    frames = frame_filter.PythonFramesFilter(lib, library_callbacks, stop_id)
    commands_of_library = registration.Registration(
        lib, commands.Runner(lib, library_callbacks, stop_id))
    commands_of_library.register_all()

    def on_files_change(_event=None):
        stop_id.bump()
        frames.forget_files()

    undo = [unraisable.uninstall, commands_of_library.restore_command]
    undo += process.connect([(name, stop_id.bump) for name in process.STOP_EVENTS] +
                            [(name, on_files_change) for name in process.FILE_EVENTS])
    gdb.frame_filters[frames.name] = frames
    installed = (lib, library_callbacks, commands_of_library, frames, undo)


def uninstall():
    """Undoes what install() set up that a second install would add to rather than replace:
    the event handlers, the unraisable hook, the gdb.Command guard."""
    global installed
    if installed is None:
        return
    for undo in installed[-1]:
        try:
            undo()
        except Exception:
            swallowed.note("uninstall")
    installed = None

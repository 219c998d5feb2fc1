"""What the library is told of the process a run reads (abi.Stop): its state, the stop it is
at, which target it is, the selected thread; and the GDB events after which the stop is
another."""

import gdb

from . import abi
from .session import MAX_NATIVE_FRAMES, os_thread_id

# Events after which memory or registers may have changed: the process resumed or stopped,
# `set var`, an inferior call.
STOP_EVENTS = ("cont", "stop", "exited", "memory_changed", "register_changed", "inferior_call")
# Events after which the loaded files may have changed too: a new objfile (a dlopen'd
# libpython), a new core file, another inferior.
FILE_EVENTS = ("new_objfile", "clear_objfiles", "new_inferior", "inferior_deleted")


class StopId:
    """The stop id the library keys what it kept on (py-up / py-down's selection, the
    runtime, pages, code objects, the walk): bumped on every resume and stop, and whenever
    the memory or the loaded files may have changed."""

    def __init__(self):
        self.value = 0

    def bump(self, _event=None):
        self.value += 1


def connect(handlers):
    """Connects each (event name, handler) of GDB's that GDB has (an older GDB lacks some);
    returns the functions that disconnect them."""
    undo = []
    for name, handler in handlers:
        registry = getattr(gdb.events, name, None)
        if registry is not None:
            registry.connect(handler)
            undo.append(lambda registry=registry, handler=handler: registry.disconnect(handler))
    return undo


def target_instance(inferior):
    """The library's id of what `inferior` debugs: its number and its
    connection's (a new core file or attach makes a new connection)."""
    connection = getattr(inferior, "connection_num", None) or 0
    return (connection << 32) | inferior.num


def process_state(inferior):
    if inferior is None:
        return abi.NO_PROCESS
    try:
        threads = inferior.threads()
    except gdb.error:
        # A remote stub in all-stop mode that cannot be asked while the process runs
        # (qemu-user's, which ignores GDB's interrupt): GDB refuses to list its threads, but
        # knows that the selected one runs.
        threads = ()
        selected = selected_thread_of(inferior)
        if selected is not None and selected.is_running():
            return abi.RUNNING
    if inferior.pid <= 0 and not threads:
        return abi.NO_PROCESS
    # `continue &`, non-stop mode: memory changes under the reads.
    if any(t.is_valid() and t.is_running() for t in threads):
        return abi.RUNNING
    return abi.STOPPED


def selected_thread_of(inferior):
    """GDB's selected thread where it is one of `inferior`'s, else None."""
    try:
        thread = gdb.selected_thread()
        if thread is not None and thread.is_valid() and thread.inferior == inferior:
            return thread
    except gdb.error:
        pass
    return None


def selected_thread_id():
    try:
        thread = gdb.selected_thread()
    except gdb.error:
        return -1
    if thread is None:
        return -1
    return os_thread_id(thread)


def selected_frame_level():
    """The selected frame's number in the selected thread (0 = newest), -1 if none. Counted
    from the newest frame: GDB 10 has no Frame.level()."""
    try:
        selected = gdb.selected_frame()
        frame = gdb.newest_frame()
        level = 0
        while frame is not None and level < MAX_NATIVE_FRAMES:
            if frame == selected:
                return level
            frame = frame.older()
            level += 1
    except gdb.error:  # no stack
        pass
    return -1


def stop(state, inferior, stop_id):
    """The abi.Stop of `inferior` (None: no inferior) in `state` at stop `stop_id`."""
    if inferior is None:
        return abi.Stop(state, 0, 0, stop_id, selected_thread_id(), -1)
    return abi.Stop(state, max(inferior.pid, 0), target_instance(inferior), stop_id,
                    selected_thread_id(), selected_frame_level() if state == abi.STOPPED else -1)

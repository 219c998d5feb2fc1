"""Plain `bt`: the Python frames each eval-loop frame runs, next to it, through a GDB frame
filter that asks the library (pyunwind_python_frames_by_native_frame_at) once per stop and
thread, reading through what the commands of the same stop read."""

import ctypes
import json
import os

import gdb
from gdb.FrameDecorator import FrameDecorator

from . import abi
from . import output
from . import process
from . import swallowed
from .session import Session, running

PLACE = "frame filter"  # where its swallowed exceptions are counted


def python_in(lib, inferior):
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
        swallowed.note(PLACE)
        return None
    answer = lib.pyunwind_python_in_module_files((ctypes.c_char_p * len(paths))(*paths),
                                                 len(paths))
    return None if answer < 0 else answer == 1


class PythonFramesDecorator(FrameDecorator):
    def __init__(self, base, python_frames):
        super().__init__(base)
        self._python_frames = python_frames

    def function(self):
        name = super().function()
        if not isinstance(name, str):
            # No debug info (an executable without its -dbg package): FrameDecorator answers
            # the pc, which GDB names from the minimal symbols, as Frame.name() does.
            try:
                symbol = self.inferior_frame().name()
            except gdb.error:
                symbol = None
            if not symbol:
                return name
            name = symbol
        return "%s [Python: %s]" % (name, self._python_frames)


class FrameLevels:
    """The level of each frame `bt` decorates: Frame.level() from GDB 11 on; GDB 10 has
    none, so there a frame's position counted from the newest frame, walked once per `bt`
    and only down to `deepest` (the deepest level with Python frames). GDB hands the
    frames to the filter newest first, so the search goes on from the last one found."""

    def __init__(self, deepest):
        self._deepest = deepest
        self._frames = None  # newest first, on GDB 10 only
        self._next = 0

    def of(self, frame):
        level = getattr(frame, "level", None)
        if level is not None:
            return level()
        if self._frames is None:
            self._frames = []
            walked = gdb.newest_frame()
            while walked is not None and len(self._frames) <= self._deepest:
                self._frames.append(walked)
                walked = walked.older()
        for position in range(self._next, len(self._frames)):
            if self._frames[position] == frame:
                self._next = position + 1
                return position
        return None  # deeper than every Python frame, or not of this thread


class PythonFramesFilter:
    """Adds the Python frames an eval-loop frame runs to its line in bt."""

    def __init__(self, lib, callbacks, stop_id):
        self.name = "pyunwind"
        self.priority = 100
        self.wanted = True  # what `enable/disable frame-filter` last said
        # {target: True / False / None (not yet known)}: whether it runs Python, as
        # decided once (python_in) and forgotten when its files change (forget_files);
        # tests/e2e/frame_filter_test.cc reads it.
        self.python_by_target = {}
        self._lib = lib
        self._callbacks = callbacks
        self._stop_id = stop_id
        self._by_level = {}  # {(stop, target, pid, thread): python_frames_by_level()}

    def forget_files(self, _event=None):
        """The loaded files changed (a dlopen'd libpython, another core): decide again."""
        self.python_by_target.clear()

    # GDB prints a `bt` its own way only when no frame filter is enabled: a filter that
    # passes every frame through unchanged still costs the Python printing of each frame.
    # So the filter is not enabled in an inferior known to run no Python.
    @property
    def enabled(self):
        if not self.wanted:
            return False
        try:
            inferior = gdb.selected_inferior()
            return self.known_python(inferior, process.target_instance(inferior)) is not False
        except Exception:
            swallowed.note(PLACE)
            return True

    @enabled.setter
    def enabled(self, value):
        self.wanted = bool(value)

    def filter(self, frame_iter):
        mapping = self.python_frames_by_level()
        if not mapping:
            return frame_iter

        levels = FrameLevels(max(mapping))

        def decorate(decorator):
            try:
                level = levels.of(decorator.inferior_frame())
            except Exception:
                swallowed.note(PLACE)
                return decorator
            frames = mapping.get(level)
            return PythonFramesDecorator(decorator, frames) if frames else decorator

        return map(decorate, frame_iter)

    def known_python(self, inferior, instance):
        """python_in(inferior), decided once per target instance."""
        if instance not in self.python_by_target:
            self.python_by_target[instance] = python_in(self._lib, inferior)
        return self.python_by_target[instance]

    def python_frames_by_level(self):
        """{native frame level: "qualname at file:line, ..."} of the selected
        thread, asked of the library once per stop and thread; {} at once in
        an inferior without Python."""
        inferior = gdb.selected_inferior()
        if running.session is not None or process.process_state(inferior) != abi.STOPPED:
            return {}
        instance = process.target_instance(inferior)
        if self.known_python(inferior, instance) is False:
            return {}
        key = (self._stop_id.value, instance, inferior.pid, process.selected_thread_id())
        if key not in self._by_level:
            self._by_level.clear()
            session = Session(inferior)
            stop = process.stop(abi.STOPPED, inferior, self._stop_id.value)
            found = ctypes.c_int(-1)
            try:
                running.session = session
                self._callbacks.live_pid = session.live_pid
                result = self._lib.pyunwind_python_frames_by_native_frame_at(
                    ctypes.byref(self._callbacks), ctypes.byref(stop), ctypes.byref(found))
                text = output.take_text(self._lib, result)
                self._by_level[key] = {int(k): v for k, v in json.loads(text).items()}
            except Exception:
                swallowed.note(PLACE)
                self._by_level[key] = {}
            finally:
                running.session = None
            if session.interrupted:  # Ctrl-C: this bt shows none, the next one asks again
                return self._by_level.pop(key, {})
            if found.value >= 0 and self.python_by_target[instance] is None:
                self.python_by_target[instance] = found.value == 1  # what the library found, once
        return self._by_level[key]

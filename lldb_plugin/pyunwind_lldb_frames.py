# Python frames in LLDB's own backtrace (`bt`, `thread backtrace all`, `frame select`, and
# front ends built on LLDB), through LLDB 22's frame providers. `plugin load
# DIR/libpyunwind_lldb.so` imports it from DIR in an LLDB with frame providers (unless
# PYUNWIND_LLDB_FRAME_PROVIDER=0); importing it again by hand changes nothing. Imported by hand
# into an LLDB without frame providers, it says so, once.
#
# Each thread's frame list
# is LLDB's native one with, after each eval-loop frame (_PyEval_EvalFrameDefault), the Python
# frames that call of the loop runs, innermost first: what `py-bt --native` prints. Python
# frames no eval-loop frame runs (a core whose executable LLDB lacks) come last.
#
# The frames are read once per stop by the plugin itself (`pyunwind py-bt --all --native
# --json`: its memory reads, its rules for remote processes and cores), with no provider
# registered: LLDB 22.1 calls a provider while it builds a thread's frame list, and any
# SBFrame method called from there resolves the frame through that same list again (endless
# re-entry, then a deadlock at exit). The provider only hands out what was read.
import ctypes
import json
import os
import select
import sys
import threading
import time

import lldb

try:
    from lldb.plugins.scripted_frame_provider import ScriptedFrameProvider
    from lldb.plugins.scripted_process import ScriptedFrame
except ImportError:  # LLDB < 22: no frame providers
    ScriptedFrameProvider = ScriptedFrame = object

_MAX_TEXT = 1024  # characters of a name or file name shown (the target chose them)


def _printable(value):
    """A target-chosen string for LLDB's output: bounded, control and bidi characters
    escaped (str.isprintable() is false for C0, C1, DEL and format characters)."""
    text = value if isinstance(value, str) else ""
    if len(text) > _MAX_TEXT:
        text = text[:_MAX_TEXT] + "..."
    return "".join(c if c.isprintable() else "\\u%04x" % ord(c) for c in text)


def merged_stacks(debugger):
    """{OS thread id: [native frame index (int) or {"qualname", "filename", "line"}]} of the
    selected process as the plugin reads it; {} when there is no Python to show."""
    result = lldb.SBCommandReturnObject()
    debugger.GetCommandInterpreter().HandleCommand(
        "pyunwind py-bt --all --native --no-source --json", result)
    if not result.Succeeded():
        return {}
    try:
        document = json.loads(result.GetOutput() or "")
    except ValueError:
        return {}
    stacks = {}
    for interpreter in document.get("interpreters", []):
        for thread in interpreter.get("threads", []):
            merged, natives, has_python = [], 0, False
            for frame in thread.get("frames", []):
                if frame.get("kind") == "native":
                    merged.append(natives)
                    natives += 1
                elif frame.get("kind", "python") == "python":
                    line = frame.get("line")
                    merged.append({"qualname": _printable(frame.get("qualname")),
                                   "filename": _printable(frame.get("filename")),
                                   "line": line if isinstance(line, int) and line > 0 else 0})
                    has_python = True
            if has_python and isinstance(thread.get("native_id"), int):
                stacks[thread["native_id"]] = merged
    return stacks


class PythonFrame(ScriptedFrame):
    """One Python frame: its qualified name, file and line."""

    def __init__(self, thread, index, frame):
        super().__init__(thread, lldb.SBStructuredData())
        self.index = index
        self.name = frame["qualname"] or "<unknown>"
        entry = lldb.SBLineEntry()
        entry.SetFileSpec(lldb.SBFileSpec(frame["filename"] or "<unknown>", False))
        entry.SetLine(frame["line"])
        self.context = lldb.SBSymbolContext()
        self.context.SetLineEntry(entry)
        module = thread.GetProcess().GetTarget().GetModuleAtIndex(0)
        if module.IsValid():
            self.context.SetModule(module)

    def get_id(self):
        return self.index

    def get_pc(self):
        # LLDB tells frames apart by (CFA, pc) when they have no symbol scope, and a
        # scripted frame's CFA is 0: without a pc of its own each Python frame would be
        # the first one to anything that finds a frame again from an SBFrame (lldb-dap's
        # stackTrace). Its position in the thread's list is unique and maps to no code.
        return self.index

    def get_function_name(self):
        return self.name

    def is_artificial(self):
        return False

    def get_symbol_context(self):
        return self.context

    def get_register_context(self):
        return None


# The frames of the last stop read: [(SBThread, [native frame index or PythonFrame])].
# The provider registered after that read carries its generation in its arguments.
# A second import (by hand after `plugin load`) re-runs this file in the same module: the
# state is kept, so that the providers already registered are still known and the stop hook
# is not added twice.
_frames = globals().get("_frames", [])
_generation = globals().get("_generation", 0)
# (debugger id, target index) -> (provider id, (process id, stop id))
_provider_ids = globals().get("_provider_ids", {})
_hooked_debuggers = globals().get("_hooked_debuggers", set())  # debugger ids with the stop hook


# (debugger id, target index, module files) -> whether the target runs Python (None: unknown).
_has_python = globals().get("_has_python", {})


def _plugin_library():
    """The plugin beside this script (which the plugin imports from its own directory), for
    its C function pyunwind_python_in_module_files; None where it cannot be loaded."""
    try:
        library = ctypes.CDLL(os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                           "libpyunwind_lldb.so"))
        function = library.pyunwind_python_in_module_files
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t]
    return function


_python_in_module_files = globals().get("_python_in_module_files") or _plugin_library()


def python_in(target):
    """Whether `target` runs Python, from its module files (the plugin reads them): True for a
    libpython or pythonX.Y module or a string table naming _PyRuntime; False only when every
    module file was read and none does; None when that cannot be decided (a core whose files
    are not here): the plugin, which can scan memory, decides. Decided once per set of
    modules."""
    paths = []
    for i in range(target.GetNumModules()):
        spec = target.GetModuleAtIndex(i).GetFileSpec()
        if (spec.GetFilename() or "[").startswith("["):  # [vdso]: the kernel's, no file
            continue
        paths.append(os.path.join(spec.GetDirectory() or "", spec.GetFilename()))
    debugger = target.GetDebugger()
    key = (debugger.GetID(), debugger.GetIndexOfTarget(target), tuple(paths))
    if key not in _has_python:
        if len(_has_python) > 64:
            _has_python.clear()
        answer = -1
        if _python_in_module_files is not None:
            files = [p.encode("utf-8", "surrogateescape") for p in paths]
            answer = _python_in_module_files((ctypes.c_char_p * len(files))(*files), len(files))
        _has_python[key] = None if answer < 0 else answer == 1
    return _has_python[key]


# LLDB 22 and 23 broadcast a stack-changed event on every thread whenever a frame provider is
# registered or removed, and LLDB's event thread (named _EVENT_THREAD) answers each one by
# printing that thread's status again, whenever it gets to it. A change of provider is
# therefore made so that those answers reach no one (_change_quietly).
_EVENT_THREAD = "dbg.evt-handler"
_SETTLE_S = 2.0  # longest wait for the event thread to answer the events of one change
_MAX_DROPPED_EVENTS = 4096
_settle_marks = globals().get("_settle_marks", 0)


def _thread_names():
    """{native thread id: name} of this debugger's own threads, or None where unknown."""
    names = {}
    try:
        for task in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/comm" % task, encoding="utf-8",
                      errors="replace") as comm:
                names[int(task)] = comm.read().strip()
    except (OSError, ValueError):
        return None
    return names


def _drop_queued_stack_changes(debugger):
    """On the event thread (a stop hook of an asynchronous stop): the change's events are
    still queued on the debugger's listener, first in line; take them off. Stops at the
    first event of another kind, which is left where it is."""
    listener = debugger.GetListener()
    event = lldb.SBEvent()
    for _ in range(_MAX_DROPPED_EVENTS):
        if not listener.PeekAtNextEvent(event):
            return
        if not (lldb.SBThread.EventIsThreadEvent(event)
                and event.GetType() == lldb.SBThread.eBroadcastBitStackChanged):
            return
        listener.GetNextEvent(event)


def _hide_answers(debugger, change):
    """On another thread, while the event thread answers concurrently: LLDB's output
    (descriptor 1) goes to a pipe until the event thread has also printed a mark posted
    after the change, which it does in order, so after its answers; at most _SETTLE_S."""
    global _settle_marks
    _settle_marks += 1
    mark = "pyunwind: frame provider changed (%d.%d)\n" % (os.getpid(), _settle_marks)
    sys.stdout.flush()
    read_end, write_end = os.pipe()
    saved = os.dup(1)
    os.dup2(write_end, 1)
    os.close(write_end)
    try:
        change()
        debugger.GetCommandInterpreter().GetBroadcaster().BroadcastEvent(lldb.SBEvent(
            lldb.SBCommandInterpreter.eBroadcastBitAsynchronousOutputData, mark))
        wanted = mark.encode()
        tail = b""
        deadline = time.monotonic() + _SETTLE_S
        while wanted not in tail:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            tail = tail[-len(wanted):] + chunk
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(read_end)


def _prints_to_descriptor_1(debugger):
    """Whether LLDB's output is this process's descriptor 1 (LLDB's command line; not
    lldb-dap, whose protocol may use descriptor 1 and whose LLDB output goes elsewhere)."""
    try:
        output = debugger.GetOutputFile().GetFile()
        return output is not None and output.fileno() == 1
    except (AttributeError, OSError, ValueError):
        return False


def _change_quietly(debugger, change):
    """Runs `change` (a provider registered or removed) so that LLDB prints no thread's
    status for it."""
    names = _thread_names()
    if not names or _EVENT_THREAD not in names.values():
        change()  # no event thread (lldb-dap, a script): no one prints the answers
    elif names.get(threading.get_native_id()) == _EVENT_THREAD:
        change()
        _drop_queued_stack_changes(debugger)
    elif _prints_to_descriptor_1(debugger):
        _hide_answers(debugger, change)
    else:
        change()


def read_stop(target):
    """Reads this stop's stacks with no provider registered, then registers the provider
    (which makes LLDB build its frame lists again)."""
    global _frames, _generation
    process = target.GetProcess()
    debugger = target.GetDebugger()
    key = (debugger.GetID(), debugger.GetIndexOfTarget(target))
    stop = (process.GetUniqueID(), process.GetStopID()) if process.IsValid() else None
    if key in _provider_ids and _provider_ids[key][1] == stop:
        return  # this stop was read (LLDB runs the stop hooks more than once per stop)
    old = _provider_ids.pop(key, None)
    if old is not None:
        _change_quietly(debugger, lambda: target.RemoveScriptedFrameProvider(old[0]))
    if stop is None or process.GetState() != lldb.eStateStopped:
        return
    frames = []
    # A program without Python costs nothing at its stops (no memory scan each time).
    if debugger.GetSelectedTarget() == target and python_in(target) is not False:
        for tid, merged in merged_stacks(debugger).items():
            thread = process.GetThreadByID(tid)
            if thread.IsValid():
                frames.append((thread, [f if isinstance(f, int) else PythonFrame(thread, i, f)
                                        for i, f in enumerate(merged)]))
    _generation += 1
    _frames = frames
    args = lldb.SBStructuredData()
    args.SetFromJSON(json.dumps({"generation": _generation}))
    error = lldb.SBError()
    provider_ids = []
    _change_quietly(debugger, lambda: provider_ids.append(target.RegisterScriptedFrameProvider(
        __name__ + ".PythonFrameProvider", args, error)))
    if error.Success() and provider_ids:
        _provider_ids[key] = (provider_ids[0], stop)


class PythonFrameProvider(ScriptedFrameProvider):
    """LLDB's native frames with the Python frames each eval-loop frame runs after it."""

    @staticmethod
    def get_description():
        return "pyunwind: Python frames after the eval-loop frame that runs them"

    def __init__(self, input_frames, args):
        # LLDB makes this provider while it builds a thread's frame list, holding that
        # thread's frame lock. Almost every SBThread/SBFrame method of LLDB 22 (GetThreadID
        # too) first takes the target's API lock, which a command such as `bt all` holds
        # while it waits for that same frame lock: a deadlock (lldb_plugin/README.md). So
        # no super().__init__() and no such call here: SBFrameList.GetThread() and
        # SBThread's == (which compares LLDB's thread objects) take neither lock, and
        # everything shown was made by read_stop, outside that path.
        self.frames = None
        self.python_count = 0
        generation = args.GetValueForKey("generation").GetIntegerValue(0) if args else 0
        if generation != _generation or input_frames is None:
            return
        thread = input_frames.GetThread()
        for read_thread, frames in _frames:
            if read_thread == thread:
                self.frames = frames
                self.python_count = sum(not isinstance(f, int) for f in frames)
                break

    def get_frame_at_index(self, index):
        if self.frames is None:
            return index  # no Python here: LLDB's own frames (LLDB ends past the last one)
        if index < len(self.frames):
            return self.frames[index]
        return index - self.python_count  # beyond what was read: LLDB's own frames


class ReadAtStop:
    """A stop hook: reads each stop (a live process's, or a core's) for the provider. Added
    before any target (a ~/.lldbinit), it goes to LLDB's dummy target, which every later
    target copies."""

    def __init__(self, target, extra_args, internal_dict):
        pass

    def handle_stop(self, exe_ctx, stream):
        read_stop(exe_ctx.GetTarget())
        return True


def __lldb_init_module(debugger, internal_dict):
    if ScriptedFrameProvider is object or not hasattr(lldb.SBTarget,
                                                      "RegisterScriptedFrameProvider"):
        print("pyunwind: this LLDB has no frame providers (LLDB 22 and later): bt shows no "
              "Python frames; py-bt --native does")
        return
    target = debugger.GetSelectedTarget()
    if target.IsValid():
        read_stop(target)
    if debugger.GetID() in _hooked_debuggers:
        return
    _hooked_debuggers.add(debugger.GetID())
    result = lldb.SBCommandReturnObject()
    debugger.GetCommandInterpreter().HandleCommand(
        "target stop-hook add -P %s.ReadAtStop" % __name__, result)

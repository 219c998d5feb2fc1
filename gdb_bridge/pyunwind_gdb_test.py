#!/usr/bin/python3
"""The GDB script's package (script/pyunwind_gdb/) in Debian's python3, under a stand-in for
GDB's `gdb` module: the count of the exceptions it swallows and `pyunwind version -v`, the one
line it prints when the library cannot be loaded, and a second `source` of the script. The
script and its package are the built copies (:gdb_files), beside the library, as installed.

tests/e2e/version_test.cc runs the same in GDB."""

import ctypes
import os
import shlex
import sys
import types
import unittest

sys.dont_write_bytecode = True  # nothing written into the runfiles

# Under --config=asan the library is instrumented and python3 is not: ASan's runtime must be
# loaded first (.bazelrc names it), as the end-to-end harness does for LLDB and GDB. Python's
# own allocations at exit are not the library's leaks.
ASAN_RUNTIME = os.environ.get("PYUNWIND_ASAN_PRELOAD", "")
if ASAN_RUNTIME and ASAN_RUNTIME not in os.environ.get("LD_PRELOAD", "").split():
    os.environ["LD_PRELOAD"] = ASAN_RUNTIME
    os.environ["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
    os.execv(sys.executable, [sys.executable] + sys.argv)

SCRIPT = os.path.abspath("gdb_bridge/pyunwind-gdb.py")
LIBRARY = os.path.abspath("gdb_bridge/libpyunwind_gdb.so")


class Registry:
    def __init__(self):
        self.handlers = []

    def connect(self, handler):
        self.handlers.append(handler)

    def disconnect(self, handler):
        self.handlers.remove(handler)


def fake_gdb():
    """What the package uses of GDB's `gdb` module, with no process."""
    gdb = types.ModuleType("gdb")
    gdb.error = type("error", (RuntimeError,), {})
    gdb.MemoryError = type("MemoryError", (gdb.error,), {})
    gdb.GdbError = type("GdbError", (Exception,), {})
    gdb.VERSION = "13.1"
    gdb.STDOUT, gdb.STDERR = 0, 1
    gdb.COMMAND_STACK, gdb.COMPLETE_NONE = 1, 2
    gdb.written = []
    gdb.write = lambda text, stream=0: gdb.written.append((stream, text))
    gdb.string_to_argv = shlex.split
    gdb.commands = {}

    class Command:
        def __init__(self, name, *args):
            gdb.commands[name] = self

        def dont_repeat(self):
            pass

    gdb.Command = Command
    gdb.events = types.SimpleNamespace(**{
        name: Registry() for name in ("new_objfile", "cont", "stop", "exited", "memory_changed",
                                      "register_changed", "inferior_call", "clear_objfiles",
                                      "new_inferior", "inferior_deleted")})
    gdb.frame_filters = {}
    no_process = types.SimpleNamespace(pid=0, num=1, progspace=None, threads=lambda: [])
    gdb.selected_inferior = lambda: no_process
    gdb.selected_thread = lambda: None

    decorators = types.ModuleType("gdb.FrameDecorator")

    class FrameDecorator:
        def __init__(self, base):
            self.base = base

        def function(self):
            return self.base.function()

    decorators.FrameDecorator = FrameDecorator
    gdb.FrameDecorator = decorators
    sys.modules["gdb"] = gdb
    sys.modules["gdb.FrameDecorator"] = decorators
    return gdb


def source_script(library=LIBRARY):
    """What GDB's `source pyunwind-gdb.py` does: runs it as __main__."""
    os.environ["PYUNWIND_GDB_LIBRARY"] = library
    with open(SCRIPT) as f:
        code = compile(f.read(), SCRIPT, "exec")
    exec(code, {"__name__": "__main__", "__file__": SCRIPT})
    return sys.modules.get("pyunwind_gdb")


class Base(unittest.TestCase):
    def setUp(self):
        self.original_hook = getattr(sys, "unraisablehook", None)
        self.gdb = fake_gdb()
        os.environ.pop("PYUNWIND_DEBUG", None)
        self.package = source_script()
        self.assertIsNotNone(self.package)

    def tearDown(self):
        self.package.uninstall()
        for name in [n for n in sys.modules if n.startswith("pyunwind_gdb")]:
            del sys.modules[name]
        os.environ.pop("PYUNWIND_DEBUG", None)

    def stderr(self):
        return "".join(text for stream, text in self.gdb.written if stream == self.gdb.STDERR)

    def stdout(self):
        return "".join(text for stream, text in self.gdb.written if stream == self.gdb.STDOUT)

    def version(self, argument):
        self.gdb.commands["pyunwind version"].invoke(argument, False)
        return self.stdout()


class FakeSession:
    def __init__(self, raises):
        self.interrupted = False
        self.raises = raises
        self.keep = {}

    def thread_name(self, _thread_id):
        raise self.raises

    def text(self, name, value):
        return 1


class SwallowedExceptions(Base):
    def call_thread_name(self, exception):
        callbacks, session = self.package.callbacks, self.package.session
        fake = FakeSession(exception)
        callback = callbacks.guarded("thread_name", None, callbacks.text_of("thread_name"))
        session.running.session = fake
        try:
            return callback(None, 7), fake
        finally:
            session.running.session = None

    def test_an_error_of_the_script_is_counted_by_place(self):
        answer, _ = self.call_thread_name(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid"))
        self.assertIsNone(answer)
        self.assertEqual(self.package.swallowed.counts(), {"thread_name": 1})
        self.assertEqual(self.stderr(), "")  # printed only under PYUNWIND_DEBUG=1

    def test_gdb_saying_no_is_the_answer_not_an_error(self):
        answer, _ = self.call_thread_name(self.gdb.MemoryError("Cannot access memory"))
        self.assertIsNone(answer)
        self.assertEqual(self.package.swallowed.counts(), {})

    def test_ctrl_c_stops_the_command_and_is_not_counted(self):
        answer, fake = self.call_thread_name(KeyboardInterrupt())
        self.assertIsNone(answer)
        self.assertTrue(fake.interrupted)
        self.assertEqual(self.package.swallowed.counts(), {})

    def test_pyunwind_debug_prints_the_traceback(self):
        os.environ["PYUNWIND_DEBUG"] = "1"
        self.call_thread_name(AttributeError("no such attribute"))
        self.assertIn("pyunwind: exception swallowed in thread_name", self.stderr())
        self.assertIn("Traceback (most recent call last):", self.stderr())
        self.assertIn("AttributeError: no such attribute", self.stderr())

    def test_a_frame_that_fails_is_left_undecorated_and_counted(self):
        frames = self.gdb.frame_filters["pyunwind"]
        frames.python_frames_by_level = lambda: {0: "main at app.py:3"}
        with_level = types.SimpleNamespace(
            inferior_frame=lambda: types.SimpleNamespace(level=lambda: 0),
            function=lambda: "_PyEval_EvalFrameDefault")

        def unreadable():
            raise AttributeError("a GDB API the script misuses")

        failing = types.SimpleNamespace(inferior_frame=unreadable)
        decorated = list(frames.filter(iter([with_level, failing])))
        self.assertEqual(decorated[0].function(),
                         "_PyEval_EvalFrameDefault [Python: main at app.py:3]")
        self.assertIs(decorated[1], failing)
        self.assertEqual(self.package.swallowed.counts(), {"frame filter": 1})

    def test_gdb_10_without_frame_level_counts_from_the_newest_frame(self):
        # GDB 10's gdb.Frame has no level(): the filter counts older() steps instead.
        class Frame10:
            def __init__(self, older):
                self._older = older

            def older(self):
                return self._older

        oldest = Frame10(None)
        middle = Frame10(oldest)
        newest = Frame10(middle)
        self.gdb.newest_frame = lambda: newest
        frames = self.gdb.frame_filters["pyunwind"]
        frames.python_frames_by_level = lambda: {1: "main at app.py:3", 2: "<module> at app.py:9"}

        def decorator(frame):
            return types.SimpleNamespace(inferior_frame=lambda: frame,
                                         function=lambda: "_PyEval_EvalFrameDefault")

        decorated = list(frames.filter(iter([decorator(f) for f in (newest, middle, oldest)])))
        self.assertEqual([d.function() for d in decorated],
                         ["_PyEval_EvalFrameDefault",
                          "_PyEval_EvalFrameDefault [Python: main at app.py:3]",
                          "_PyEval_EvalFrameDefault [Python: <module> at app.py:9]"])
        self.assertEqual(self.package.swallowed.counts(), {})


class VersionVerbose(Base):
    def test_says_none_were_swallowed(self):
        out = self.version("-v")
        self.assertTrue(out.startswith("pyunwind "), out)
        self.assertIn("\nrunning in GDB 13.1\n", out)
        self.assertTrue(out.endswith("\nGDB script: 0 exceptions swallowed\n"), out)

    def test_says_how_many_and_where(self):
        for place in ("frame filter", "frame filter", "thread_name"):
            try:
                raise AttributeError(place)
            except AttributeError:
                self.package.swallowed.note(place)
        self.assertTrue(self.version("--verbose").endswith(
            "\nGDB script: 3 exceptions swallowed (frame filter: 2, thread_name: 1); "
            "PYUNWIND_DEBUG=1 prints them\n"))

    def test_without_v_the_library_alone_answers(self):
        self.assertNotIn("GDB script", self.version(""))
        self.assertEqual(self.package.swallowed.counts(), {})

    def test_not_with_json(self):
        with self.assertRaises(self.gdb.GdbError):
            self.version("--json -v")
        self.assertEqual(self.stdout(), "")

    def test_the_library_refuses_what_else_it_does_not_know(self):
        with self.assertRaisesRegex(self.gdb.GdbError, "unknown option '--bogus'"):
            self.version("-v --bogus")

    def test_help_names_it(self):
        self.assertIn("-v, --verbose", self.gdb.commands["pyunwind version"].__doc__)


class Sourcing(Base):
    def test_a_library_that_cannot_load_is_one_line(self):
        self.gdb.written.clear()
        source_script("/nonexistent/libpyunwind_gdb.so")
        lines = self.stderr().splitlines()
        self.assertEqual(len(lines), 1, self.stderr())
        self.assertTrue(lines[0].startswith(
            "pyunwind: cannot load /nonexistent/libpyunwind_gdb.so: "), lines[0])

    def test_twice_undoes_the_first(self):
        first = self.package
        self.package = source_script()
        self.assertIsNot(self.package, first)
        for name in ("new_objfile", "stop", "cont", "inferior_deleted"):
            self.assertEqual(len(getattr(self.gdb.events, name).handlers), 1, name)
        if self.original_hook is not None:
            self.assertEqual(sys.unraisablehook.__self__.previous, self.original_hook)
        self.assertTrue(issubclass(self.gdb.Command, self.gdb.Command.pyunwind_base))
        self.assertEqual(self.gdb.Command.pyunwind_base.__name__, "Command")
        self.assertIn("pyunwind py-bt", self.gdb.commands)
        self.package.uninstall()
        self.assertEqual(len(self.gdb.events.stop.handlers), 0)
        self.assertEqual(getattr(sys, "unraisablehook", None), self.original_hook)
        self.assertEqual(self.gdb.Command.__name__, "Command")


if __name__ == "__main__":
    ctypes.CDLL(LIBRARY)  # a clear failure when the library is not in the runfiles
    unittest.main(verbosity=2)

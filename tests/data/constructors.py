"""Threads parked inside Python class constructors called from Python.

usage: python constructors.py TRUTH_JSON

From 3.13 on, a call site that calls a plain Python class is specialized to
CALL_ALLOC_AND_ENTER_INIT, which pushes CPython's internal init-cleanup shim frame
(_Py_InitCleanup, file and name "__init__", no line) between __init__ and its caller.
Tracebacks, sys._current_frames() and traceback.extract_stack() never show it; an unwinder
must not either. Each call site below runs many times first, so that it is specialized when
the last call parks.

Threads (role: where it parks):
  ctor      Handler.__init__, called as Handler(...) from make_handler
  nested    Inner.__init__, called from Outer.__init__, itself called from make_outer
  super     Base.__init__ via super().__init__() from Derived.__init__ (class call from a function)
  server    socketserver's chain: BaseServer.process_request -> finish_request ->
            self.RequestHandlerClass(...) -> BaseRequestHandler.__init__ -> handle
  main      the main thread, which writes the truth and parks

The truth ({"scenario", "pid", "python", "threads": [{"native_id", "name", "role",
"is_main", "frames"}]}) lists each thread's frames innermost first as sys._current_frames()
and traceback.extract_stack() report them (filename, line, name; qualname from the code
object). The two must agree, and the stacks must be the same in two snapshots, or no truth
is written. The file is written atomically once every thread is parked. "class_calls" says,
for each function whose class call a parked thread is inside, how its CALL instructions are
specialized (dis, adaptive=True): CALL_ALLOC_AND_ENTER_INIT is the one with the shim.
"""
import dis
import socketserver
import sys
import threading
import time
import traceback

from scenario_truth import frame_entry, truth_of, write_truth

TRUTH = sys.argv[1]
WARMUP = 64  # calls before the parking one: enough for any specialization warm-up
ROLES = {}
LOCK = threading.Lock()


def register(role):
    with LOCK:
        ROLES[threading.get_ident()] = role


def park():
    while True:
        time.sleep(3600)


class Handler:
    def __init__(self, role):
        self.role = role
        if role:
            register(role)
            park()


def make_handler(role):
    return Handler(role)


def ctor_thread():
    for _ in range(WARMUP):
        make_handler(None)
    make_handler("ctor")


class Inner:
    def __init__(self, role):
        if role:
            register(role)
            park()


class Outer:
    def __init__(self, role):
        self.inner = Inner(role)


def make_outer(role):
    return Outer(role)


def nested_thread():
    for _ in range(WARMUP):
        make_outer(None)
    make_outer("nested")


class Base:
    def __init__(self, role):
        if role:
            register(role)
            park()


class Derived(Base):
    def __init__(self, role):
        super().__init__(role)


def make_derived(role):
    return Derived(role)


def super_thread():
    for _ in range(WARMUP):
        make_derived(None)
    make_derived("super")


class ParkingHandler(socketserver.BaseRequestHandler):
    def handle(self):
        if self.request == "park":
            register("server")
            park()


def server_thread():
    # No sockets: BaseServer's own methods, given a request object directly.
    server = socketserver.BaseServer(("127.0.0.1", 0), ParkingHandler)
    for _ in range(WARMUP):
        server.process_request("warm-up", ("127.0.0.1", 1))
    server.process_request("park", ("127.0.0.1", 1))


WORKERS = {
    "ctor": ctor_thread,
    "nested": nested_thread,
    "super": super_thread,
    "server": server_thread,
}

# The functions whose one class call each parked thread is inside (truth "class_calls").
CALL_SITES = {
    "make_handler": make_handler,
    "Outer.__init__": Outer.__init__,
    "make_outer": make_outer,
    "make_derived": make_derived,
    "BaseServer.finish_request": socketserver.BaseServer.finish_request,
}


def class_calls():
    """How each call site's CALL instruction is specialized now: CALL_ALLOC_AND_ENTER_INIT
    (3.13+) is the one that pushes the init-cleanup shim frame."""
    out = {}
    for name, fn in CALL_SITES.items():
        ops = [i.opname for i in dis.get_instructions(fn, adaptive=True)
               if i.opname.startswith("CALL")]
        out[name] = ops
    return out


def frames_of(frame):
    """Innermost first, from sys._current_frames()' frame and its f_back chain; checked
    against traceback.extract_stack()."""
    out = []
    f = frame
    while f is not None:
        out.append(frame_entry(f.f_code, f.f_lineno))
        f = f.f_back
    summary = list(reversed(traceback.extract_stack(frame)))
    seen = [(s.filename, s.lineno, s.name) for s in summary]
    mine = [(r["filename"], r["line"], r["name"]) for r in out]
    if seen != mine:
        raise SystemExit(f"traceback.extract_stack disagrees with f_back:\n{seen}\n{mine}")
    return out


def snapshot(main_ident, main_frames):
    current = sys._current_frames()
    threads = []
    for t in threading.enumerate():
        if t.ident == main_ident:
            frames = main_frames
        elif t.ident in current:
            frames = frames_of(current[t.ident])
        else:
            continue
        threads.append({
            "native_id": t.native_id,
            "ident": t.ident,
            "name": t.name,
            "role": "main" if t.ident == main_ident else ROLES.get(t.ident, "unknown"),
            "is_main": t is threading.main_thread(),
            "frames": frames,
        })
    threads.sort(key=lambda t: t["native_id"])
    return threads


def main():
    for role, target in WORKERS.items():
        threading.Thread(target=target, name=role, daemon=True).start()
    deadline = time.time() + 30
    while True:
        with LOCK:
            if len(ROLES) == len(WORKERS):
                break
        if time.time() > deadline:
            raise SystemExit(f"only {sorted(ROLES.values())} parked")
        time.sleep(0.01)
    # The main thread's stack as it will be, parked in park() called from main() below.
    here = sys._getframe()
    mine = frames_of(here)
    mine[0]["line"] = PARK_CALL_LINE
    mine.insert(0, frame_entry(park.__code__, park.__code__.co_firstlineno + 2))
    time.sleep(0.3)
    first = snapshot(threading.get_ident(), mine)
    time.sleep(0.3)
    second = snapshot(threading.get_ident(), mine)
    if first != second:
        raise SystemExit("thread stacks were not stable; refusing to write truth")
    write_truth(TRUTH, truth_of("constructors", second, class_calls=class_calls()))
    park()  # PARK_CALL_LINE


PARK_CALL_LINE = next(i for i, text in enumerate(open(__file__), 1)
                      if text.strip() == "park()  # PARK_CALL_LINE")

if __name__ == "__main__":
    main()

"""Threads parked in imports, for py-waits (tests/e2e/waits_test.cc).

usage: python import_waits.py TRUTH_JSON

  importer-1     imports parked_a, whose body waits for LOCK (a plain Lock)    } a deadlock
  importer-2     holds LOCK (`with`), then imports parked_a: waits for the     } through an
                 module lock importer-1 owns while it runs parked_a's body      } import
  import-holder  imports parked_b, whose body sleeps
  import-waiter  imports parked_b: waits for the module lock import-holder owns: no cycle
  main           writes the truth, sleeps

Python's own import deadlock check (_ModuleLock.has_deadlock) follows only module locks, so the
first pair waits for ever. The two modules are written to a new directory at start.

Truth: as tests/data/waits.py's (no tasks); an import's waiter waits for "import_lock", its
"address" the _ModuleLock (importlib._bootstrap._module_locks, frozen as
_frozen_importlib), held by the thread its owner
ident names, and its "module" the module's name.
"""
import os
import sys
import tempfile
import threading
import time

import _frozen_importlib  # importlib._bootstrap, as the interpreter froze it

from scenario_truth import WaitNotes, truth_of, write_truth

NOTES = WaitNotes()
note = NOTES.note
READY = threading.Semaphore(0)
LOCK = threading.Lock()
LOCK_HELD = threading.Event()
A_RUNNING = threading.Event()
B_RUNNING = threading.Event()
MODULES = {"parked_a": "import __main__\n__main__.wait_for_lock()\n",
           "parked_b": "import __main__\n__main__.sleep_in_import()\n"}


def module_lock(name):
    """The _ModuleLock of `name`, which the thread importing it made."""
    return _frozen_importlib._module_locks[name]()


def wait_for_lock():  # parked_a's body, run by importer-1
    A_RUNNING.set()
    note("lock", id(LOCK), ["importer-2"])
    READY.release()
    LOCK.acquire()  # parked


def sleep_in_import():  # parked_b's body, run by import-holder
    B_RUNNING.set()
    note("sleep")
    READY.release()
    time.sleep(3600)  # parked


def importer_1():
    LOCK_HELD.wait()
    import parked_a  # noqa: F401


def importer_2():
    with LOCK:
        LOCK_HELD.set()
        A_RUNNING.wait()
        note("import_lock", id(module_lock("parked_a")), ["importer-1"], module="parked_a")
        READY.release()
        import parked_a  # noqa: F401  (parked)


def import_holder():
    import parked_b  # noqa: F401


def import_waiter():
    B_RUNNING.wait()
    note("import_lock", id(module_lock("parked_b")), ["import-holder"], module="parked_b")
    READY.release()
    import parked_b  # noqa: F401  (parked)


def main():
    threading.current_thread().name = "main"
    directory = tempfile.mkdtemp(prefix="pyunwind-import-waits-")
    for name, body in MODULES.items():
        with open(os.path.join(directory, name + ".py"), "w") as f:
            f.write(body)
    sys.path.insert(0, directory)
    starts = [("importer-1", importer_1), ("importer-2", importer_2),
              ("import-holder", import_holder), ("import-waiter", import_waiter)]
    for name, target in starts:
        threading.Thread(target=target, name=name, daemon=True).start()
    for _ in starts:
        READY.acquire()
    time.sleep(0.5)  # each thread from its note() into the wait it is parked in
    note("sleep")
    cycle = NOTES.cycle(["importer-1", "importer-2"])  # importer-1 waits for importer-2
    write_truth(sys.argv[1], truth_of("import_waits", NOTES.entries(), tasks=[], cycles=[cycle]))
    while True:
        time.sleep(3600)  # parked


if __name__ == "__main__":
    main()

"""Threads parked in concurrent.futures' Future.result(), for py-waits (tests/e2e/waits_test.cc).

usage: python futures_wait.py TRUTH_JSON

  ThreadPoolExecutor-0_0  the one worker of an executor; its task submits a second task to the
                          same executor and waits for its result, queued behind itself: a
                          deadlock of that one thread
  sleepy_0, sleepy_1      the two workers of a second executor ("sleepy"), in time.sleep
  main                    waits in Future.result() for a Future a sleepy worker runs
                          (RUNNING): no cycle
  asker                   waits in Future.exception() for the Future the other sleepy worker
                          runs: no cycle
  truth                   writes the truth, sleeps

Truth: as tests/data/waits.py's (no tasks), and for a Future's waiter its "state" (the Future's
_state) and, when it is queued, "executor": {"address", "workers", "idle_workers"}.
"""
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from scenario_truth import WaitNotes, truth_of, write_truth

NOTES = WaitNotes()
note = NOTES.note
READY = threading.Semaphore(0)
RUNNERS = {}  # a sleepy Future's key -> the name of the worker running it


def never_runs():
    pass


def submit_to_own_executor(executor):
    queued = executor.submit(never_runs)
    me = threading.current_thread().name
    note("concurrent_future", id(queued), [me], state=queued._state,
         executor={"address": "%#x" % id(executor), "workers": len(executor._threads),
                   "idle_workers": 0})
    READY.release()
    queued.result()  # parked


def nap(key):
    RUNNERS[key] = threading.current_thread().name
    note("sleep")
    READY.release()
    time.sleep(3600)  # parked


def ask(future, runner):
    note("concurrent_future", id(future), [runner], state=future._state)
    READY.release()
    future.exception()  # parked


def write_later(path, cycle_of):
    time.sleep(0.5)  # main from its note() into Future.result()
    note("sleep")
    write_truth(path, truth_of("futures_wait", NOTES.entries(), tasks=[],
                               cycles=[NOTES.cycle([cycle_of])]))
    while True:
        time.sleep(3600)  # parked


def main():
    threading.current_thread().name = "main"
    selfish = ThreadPoolExecutor(max_workers=1)
    sleepy = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sleepy")
    selfish.submit(submit_to_own_executor, selfish)
    running = sleepy.submit(nap, "result")
    asked = sleepy.submit(nap, "exception")
    for _ in range(3):
        READY.acquire()
    threading.Thread(target=ask, args=(asked, RUNNERS["exception"]), name="asker",
                     daemon=True).start()
    READY.acquire()
    note("concurrent_future", id(running), [RUNNERS["result"]], state=running._state)
    deadlocked = next(t for t in selfish._threads).name
    threading.Thread(target=write_later, args=(sys.argv[1], deadlocked), name="truth",
                     daemon=True).start()
    running.result()  # parked


if __name__ == "__main__":
    main()

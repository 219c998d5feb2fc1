"""A thread waiting for the GIL ("waiting for the GIL" in the thread header and JSON activity;
3.15 records it in thread_state.gil_requested, status "gil_requested" in JSON).

usage: python gil_wait.py TRUTH_JSON

The switch interval is set to an hour, so the main thread, spinning in pure Python, keeps the
GIL: nobody asks it to drop the GIL before an hour has passed. Threads (role: what it does):
  spinner  the main thread: writes the truth, then spins for ever holding the GIL
  waiter   sleeps 50 ms at a time: after its first sleep past the truth it waits for the GIL
           for ever (the state is reached once and then kept)
  sleeper  time.sleep(3600): blocked, not asking for the GIL

Truth: {"scenario", "pid", "python", "threads": [{"native_id", "role", "gil_requested"}]}.
"""
import sys
import threading
import time

from scenario_truth import truth_of, write_truth

TRUTH = sys.argv[1]


def waiter():
    while True:
        time.sleep(0.05)


def sleeper():
    time.sleep(3600)


def main():
    sys.setswitchinterval(3600)
    roles = {"waiter": waiter, "sleeper": sleeper}
    started = {role: threading.Thread(target=f, name=role, daemon=True) for role, f in roles.items()}
    for thread in started.values():
        thread.start()
    threads = [{"native_id": t.native_id, "role": role, "gil_requested": role == "waiter"}
               for role, t in started.items()]
    threads.append({"native_id": threading.get_native_id(), "role": "spinner",
                    "gil_requested": False})
    write_truth(TRUTH, truth_of("gil_wait", threads))
    while True:
        pass


main()

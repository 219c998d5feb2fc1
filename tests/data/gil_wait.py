"""A thread waiting for the GIL ("waiting for the GIL" in the thread header and JSON activity;
3.15 records it in thread_state.gil_requested, status "gil_requested" in JSON).

usage: python gil_wait.py TRUTH_JSON

The switch interval is set to an hour, so the main thread, spinning in pure Python, keeps the
GIL: nobody asks it to drop the GIL before an hour has passed (2.7, whose GIL is dropped every
`check interval` bytecodes: that interval set to 2**31 - 1, its largest). Runs on 2.7 and 3.8+ (2.7: each
thread records its OS thread id itself, legacy_truth.py). Threads (role: what it does):
  spinner  the main thread: writes the truth, then spins for ever holding the GIL
  waiter   sleeps 50 ms at a time: after its first sleep past the truth it waits for the GIL
           for ever (the state is reached once and then kept)
  sleeper  time.sleep(3600): blocked, not asking for the GIL

Truth: {"scenario", "pid", "python", "threads": [{"native_id", "role", "gil_requested"}]}.
"""
from __future__ import print_function

import sys
import threading
import time

if sys.version_info[0] == 2:
    from legacy_truth import gettid, start_thread, truth_of, write_truth
else:
    from scenario_truth import truth_of, write_truth

    def gettid():
        return threading.get_native_id()

    def start_thread(target, name):
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        return thread

TRUTH = sys.argv[1]
NATIVE_IDS = {}  # role -> OS thread id, recorded by the thread itself


def waiter():
    NATIVE_IDS["waiter"] = gettid()
    while True:
        time.sleep(0.05)


def sleeper():
    NATIVE_IDS["sleeper"] = gettid()
    time.sleep(3600)


def main():
    if sys.version_info[0] == 2:
        sys.setcheckinterval(2 ** 31 - 1)  # an int, as 2.7 keeps it
    else:
        sys.setswitchinterval(3600)
    roles = {"waiter": waiter, "sleeper": sleeper}
    for role, target in roles.items():
        start_thread(target, name=role)
    while len(NATIVE_IDS) < len(roles):
        time.sleep(0.01)
    threads = [{"native_id": NATIVE_IDS[role], "role": role, "gil_requested": role == "waiter"}
               for role in roles]
    threads.append({"native_id": gettid(), "role": "spinner", "gil_requested": False})
    write_truth(TRUTH, truth_of("gil_wait", threads))
    while True:
        pass


main()

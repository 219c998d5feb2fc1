"""A process whose code objects name files a debugger must not show: '/proc/self/environ' (the
debugger's own environment, read through its own /proc/self) and the relative 'secret.py' (meant
for the file of that name in the debugger's working directory). One thread parks in each; the
process then moves to a working directory of its own, empty, so that no file of its own answers
to 'secret.py'. Usage: python3 hostile_source_names.py TRUTH_JSON; the truth is
{"pid", "python": {"hexversion"}, "names": [...]}, written once both threads are parked.
"""
import json
import os
import sys
import tempfile
import threading
import time

TRUTH = sys.argv[1]
NAMES = ["/proc/self/environ", "secret.py"]
SOURCE = "def park(ready):\n    ready.set()\n    while True:\n        time.sleep(3600)\n" + "pass\n" * 20

os.chdir(tempfile.mkdtemp(prefix="pyunwind-hostile-cwd-"))
threads = []
for name in NAMES:
    namespace = {"time": time}
    exec(compile(SOURCE, name, "exec"), namespace)
    ready = threading.Event()
    thread = threading.Thread(target=namespace["park"], args=(ready,), daemon=True)
    thread.start()
    ready.wait(60)
    threads.append(thread)
time.sleep(0.3)
with open(TRUTH + ".tmp", "w") as f:
    json.dump({"pid": os.getpid(), "python": {"hexversion": sys.hexversion}, "names": NAMES}, f)
os.rename(TRUTH + ".tmp", TRUTH)
while True:
    time.sleep(3600)

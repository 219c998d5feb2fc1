"""A program that names things to attack the terminal of whoever inspects it.

usage: python injection.py TRUTH_JSON

  - a thread parked in a function whose code object has the file name
    "\\x1b]0;PWNED-TITLE\\x07\\x1b[2J/evil.py" (sets the terminal title, clears the
    screen), the name "\\x1b[31mevil" and the qualified name "q\\r\\nForged: line", with a
    local holding escape bytes and a bidi override;
  - a thread whose file name carries a right-to-left override ("\\u202egnp.py") and a C1
    control (U+009B, the 8-bit CSI);
  - an event loop thread with a task named "\\x1b[31mRED\\x1b[0m-task\\r\\nInjected line"
    parked in Event.wait, and a threading name with an escape.
The main thread writes TRUTH_JSON ({"pid", "names"}: the hostile strings) atomically
when all are parked, then sleeps.
"""
import asyncio
import json
import os
import sys
import threading
import time

TRUTH = sys.argv[1]
EVIL_FILE = "\x1b]0;PWNED-TITLE\x07\x1b[2J/evil.py"
BIDI_FILE = "/tmp/\u202egnp.py\u009b2J"
TASK_NAME = "\x1b[31mRED\x1b[0m-task\r\nInjected line"
parked = threading.Barrier(4)


def make(file_name, name=None, qualname=None):
    namespace = {}
    source = (
        "def park(barrier, time):\n"
        "    secret = '\\x1b[2J\\u202e\\r\\nforged'\n"
        "    barrier.wait()\n"
        "    time.sleep(3600)\n"
    )
    exec(compile(source, file_name, "exec"), namespace)
    function = namespace["park"]
    if name:
        function.__code__ = function.__code__.replace(co_name=name, co_qualname=qualname)
    return function


async def waiter(event):
    await event.wait()


async def loop_main():
    event = asyncio.Event()
    asyncio.get_running_loop().create_task(waiter(event), name=TASK_NAME)
    await asyncio.sleep(0)
    parked.wait()
    await event.wait()


evil = make(EVIL_FILE, "\x1b[31mevil", "q\r\nForged: line")
bidi = make(BIDI_FILE)
threading.Thread(target=evil, args=(parked, time), name="\x1b[2Jworker", daemon=True).start()
threading.Thread(target=bidi, args=(parked, time), daemon=True).start()
threading.Thread(target=lambda: asyncio.run(loop_main()), daemon=True).start()
parked.wait()
time.sleep(0.5)  # the loop thread reaches its await
with open(TRUTH + ".tmp", "w") as f:
    json.dump({"pid": os.getpid(), "names": [EVIL_FILE, BIDI_FILE, TASK_NAME]}, f)
os.rename(TRUTH + ".tmp", TRUTH)
time.sleep(3600)

"""A program whose text is wider than a byte: a module global of 4-byte UTF-8
characters long enough that a debugger writing it in pieces cuts characters
(the GDB script writes 64 KiB at a time), for output tests.

usage: python wide_text.py TRUTH_JSON

The main thread writes TRUTH_JSON ({"pid", "wide_chars"}: the global's length)
atomically, then sleeps.
"""
import json
import os
import sys
import time

TRUTH = sys.argv[1]
WIDE_CHARS = 100_000
wide = "\U0001F600" * WIDE_CHARS  # 400,000 bytes of UTF-8

with open(TRUTH + ".tmp", "w") as f:
    json.dump({"pid": os.getpid(), "wide_chars": WIDE_CHARS}, f)
os.rename(TRUTH + ".tmp", TRUTH)
time.sleep(3600)

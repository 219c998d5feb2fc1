"""Threads with the same Python stack, for `py-bt --all --group`.

usage: python pool.py TRUTH_JSON

Threads (role):
  pool      the 24 workers of a ThreadPoolExecutor, idle: each waits for work on the same line
  pair      3 threads parked on one line of pair_wait
  near      1 thread of pair_wait parked on another line: same function, not the same stack
  lone      1 thread in threading.Event().wait()
  recorder  the main thread: takes the others' stacks (twice, they must agree), writes the
            truth, parks

Truth: scenario_truth.truth_of(), and "groups": the threads whose frames (filename, line, name,
qualname, innermost first) are the same, each {"count", "native_ids", "names", "frames"},
largest first.
"""
import concurrent.futures
import sys
import threading

from scenario_truth import Roll, sleep_forever, truth_of, write_truth

POOL = 24
PAIR = 3
roll = Roll(expected=POOL + PAIR + 2)


def pool_task(started):
    roll.here("pool")
    started.wait()  # every worker exists before any goes idle: the pool has POOL threads


def pair_wait(near):
    if near:
        roll.here("near")
        sleep_forever()
    roll.here("pair")
    sleep_forever()


def lone_wait():
    roll.here("lone")
    threading.Event().wait()


def groups_of(threads):
    """The threads with the same frames, largest group first (then by native id)."""
    groups = {}
    for thread in sorted(threads, key=lambda t: t["native_id"]):
        key = tuple((f["filename"], f["line"], f["name"], f["qualname"]) for f in thread["frames"])
        group = groups.setdefault(key, {"count": 0, "native_ids": [], "names": [],
                                        "frames": thread["frames"]})
        group["count"] += 1
        group["native_ids"].append(thread["native_id"])
        group["names"].append(thread["name"])
    return sorted(groups.values(), key=lambda g: -g["count"])


def main(truth_path):
    started = threading.Barrier(POOL + 1)
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=POOL, thread_name_prefix="pool")
    for _ in range(POOL):
        executor.submit(pool_task, started)
    started.wait()
    for i in range(PAIR):
        threading.Thread(target=pair_wait, args=(False,), name="pair-%d" % i, daemon=True).start()
    threading.Thread(target=pair_wait, args=(True,), name="near", daemon=True).start()
    threading.Thread(target=lone_wait, name="lone", daemon=True).start()
    others = roll.threads(leave_out={threading.get_ident()})
    me = roll.my_row("recorder", "recorder parks")
    threads = others + [me]
    write_truth(truth_path, truth_of("pool", threads, groups=groups_of(threads)))
    sleep_forever()  # recorder parks


if __name__ == "__main__":
    main(sys.argv[1])

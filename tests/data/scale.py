"""Many deep stacks, for timing: the main thread DEPTH frames deep and THREADS threads 60 deep.

usage: python scale.py TRUTH_JSON [--depth DEPTH] [--threads THREADS]   (1500 and 24 by default)

Truth: scenario_truth.truth_of() (roles "main", "worker-N", "recorder").
"""
import argparse
import sys
import threading

from scenario_truth import Roll, sleep_forever, truth_of, write_truth


def descend(depth, role, roll):
    if depth == 0:
        roll.here(role)
        sleep_forever()
    return descend(depth - 1, role, roll)


def record(truth_path, roll):
    others = roll.threads(leave_out={threading.get_ident()})
    me = roll.my_row("recorder", "recorder parks")
    write_truth(truth_path, truth_of("scale", others + [me]))
    sleep_forever()  # recorder parks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("truth")
    parser.add_argument("--depth", type=int, default=1500)
    parser.add_argument("--threads", type=int, default=24)
    args = parser.parse_args()
    sys.setrecursionlimit(args.depth + 1000)
    roll = Roll(expected=args.threads + 1)
    for i in range(args.threads):
        threading.Thread(target=descend, args=(60, "worker-%d" % i, roll), name="worker-%d" % i,
                         daemon=True).start()
    threading.Thread(target=record, args=(args.truth, roll), name="recorder", daemon=True).start()
    descend(args.depth, "main", roll)


if __name__ == "__main__":
    main()

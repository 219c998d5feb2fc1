"""A thread whose frames hold arguments and locals of the common types, for `--locals`.

usage: python locals.py TRUTH_JSON

Threads, in the order they start: main (parks), worker (outer() -> middle() -> innermost(),
parked), recorder (writes the truth, parks).

Truth: scenario_truth.truth_of() with "locals": {"role": "worker", "frames": [{"qualname",
"locals": {NAME: {"type", "repr"}}}]}, every frame of the worker innermost first, each local's
type name and repr() cut at 120 characters, as the process sees them.
"""
import sys
import threading

from scenario_truth import Roll, sleep_forever, truth_of, write_truth

roll = Roll(expected=2)


def innermost(number, word, ratio, yes, nothing, raw, pair, items, table, huge, doubled, single):
    roll.here("worker")
    sleep_forever()


def middle(account, tags):
    count = len(tags) * 3
    motto = "naïve café ☕"
    return innermost(-7, "wörd", 0.125, False, None, b"\x01\xferaw", ("x", 2), [4, 5, 6],
                     {"k": [1], "z": None}, 3**70, motto * 2, {"solo"})


def outer():
    account = 1234
    return middle(account, ["red", "green"])


def describe(frame):
    return {name: {"type": type(value).__name__, "repr": repr(value)[:120]}
            for name, value in frame.f_locals.items()}


def record(truth_path, worker):
    others = roll.threads(leave_out={threading.get_ident()})
    frames = []
    frame = sys._current_frames()[worker.ident]
    while frame is not None:
        frames.append({"qualname": frame.f_code.co_qualname, "locals": describe(frame)})
        frame = frame.f_back
    me = roll.my_row("recorder", "recorder parks")
    write_truth(truth_path, truth_of("locals", others + [me],
                                     locals={"role": "worker", "frames": frames}))
    sleep_forever()  # recorder parks


def main(truth_path):
    worker = threading.Thread(target=outer, name="worker", daemon=True)
    worker.start()
    threading.Thread(target=record, args=(truth_path, worker), name="recorder",
                     daemon=True).start()
    roll.here("main")
    sleep_forever()


if __name__ == "__main__":
    main(sys.argv[1])

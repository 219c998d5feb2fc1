"""The `scale` scenario with a configurable depth (the benchmark's 5000-frame variant).

    python3.11 bench/scale_deep.py TRUTH [--depth 5000] [--threads 24] [--thread-depth 60]
        [--scenarios DIR]

Same shape as ../shared/fixtures/scenarios/scale.py (which has the depth fixed at 1,500):
the main thread `--depth` frames deep in descend(), `--threads` worker threads
`--thread-depth` frames deep, and the recorder thread. It reuses the fixtures' `_truth.py`
(found in --scenarios DIR, $PYUNWIND_SCENARIOS, or ../shared/fixtures/scenarios beside
the repository) so the truth file has the same fields as every other fixture's.
"""
import argparse
import os
import sys
import threading


def _scenarios_dir(explicit):
    if explicit:
        return explicit
    if os.environ.get("PYUNWIND_SCENARIOS"):
        return os.environ["PYUNWIND_SCENARIOS"]
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.join(here, "..", "..", "shared", "fixtures", "scenarios")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("truth")
    parser.add_argument("--depth", type=int, default=5000)
    parser.add_argument("--threads", type=int, default=24)
    parser.add_argument("--thread-depth", type=int, default=60)
    parser.add_argument("--scenarios", default=None)
    args = parser.parse_args()

    sys.path.insert(0, os.path.realpath(_scenarios_dir(args.scenarios)))
    from _truth import Recorder, park_forever

    rec = Recorder("scale_deep", expected_threads=args.threads + 1)

    def descend(n, role):
        if n == 0:
            rec.register(role)
            park_forever()
        return descend(n - 1, role)

    sys.setrecursionlimit(max(10_000, args.depth + 1_000))
    for i in range(args.threads):
        threading.Thread(target=descend, args=(args.thread_depth, f"worker-{i}"),
                         name=f"worker-{i}", daemon=True).start()
    threading.Thread(target=rec.finish, args=(args.truth,), name="recorder", daemon=True).start()
    descend(args.depth, "main")


if __name__ == "__main__":
    main()

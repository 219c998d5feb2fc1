#!/usr/bin/python3
"""What one read per stop saves, and what pyunwind costs where there is no Python.

    python3 bench/stop_cache_benchmark.py [--repeat 5] [--heap-mib 2048] [--before DIR]
                                          [--json-out FILE]   (after bazel build //:files)

1. `bt` in GDB on a program that is not Python (bench/big_heap.c, compiled here with cc, a heap
   of --heap-mib MiB), attached by pid: without pyunwind, with this build's pyunwind-gdb.py
   sourced, and (--before DIR: a directory with an older pyunwind-gdb.py and
   libpyunwind_gdb.so) with an older one.
2. On the 3.11.2 `scale` fixture core opened without its executable (the runtime is found by a
   memory scan), in LLDB and GDB: the sequence `py-bt --all; py-up; py-list; py-locals;
   py-bt --all` against 5 x a lone `py-bt --all` (each the first command of its session).

Times are measured inside the debugger (debugger_benchmark.py's brackets: GDB's
time.perf_counter(), LLDB's timestamped command log), minus the same bracket with nothing in it;
medians of --repeat runs, round-robin. Stdlib only; kills every process it starts.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import debugger_benchmark as db  # noqa: E402

SEQUENCE = ["py-bt --all", "py-up", "py-list", "py-locals", "py-bt --all"]


def inside_ms(debugger, text):
    if debugger == "gdb":
        m = db.ELAPSED_LINE.search(text)
        return float(m.group(1)) * 1000 if m else None
    seconds = db.lldb_bracket_seconds()
    return seconds * 1000 if seconds is not None else None


def gdb_argv(script, commands, pid=None, core=None):
    argv = ["/usr/bin/gdb", "-nx", "-batch"]
    argv += ["-p", str(pid)] if pid else ["-c", core]
    if script:
        argv += ["-ex", "source " + script]
    argv += ["-ex", db.GDB_T0]
    for c in commands:
        argv += ["-ex", c]
    argv += ["-ex", db.GDB_T1]
    if pid:
        argv += ["-ex", "detach"]
    return argv


def lldb_argv(plugin, commands, core):
    argv = ["/usr/bin/lldb", "--batch", "--no-lldbinit", "-c", core, "-o", "plugin load " + plugin]
    return argv + db.lldb_bracketed(commands)


def run_variants(variants, repeat, timeout, check):
    """{name: [in-debugger ms, ...]} over `repeat` round-robin runs; `check(name, text)` raises on
    output that is not what the variant must print."""
    inside = {name: [] for name in variants}
    for i in range(repeat):
        for name, (debugger, argv) in variants.items():
            _, text, rc = db.run_timed(argv, timeout)
            if rc != 0:
                raise SystemExit("%s exited %d:\n%s" % (name, rc, text[-2000:]))
            check(name, text)
            ms = inside_ms(debugger, text)
            if ms is None:
                raise SystemExit("%s: no timing bracket in its output:\n%s" % (name, text[-2000:]))
            inside[name].append(ms)
        db.log("run %d/%d done" % (i + 1, repeat))
    return inside


def median(values):
    return statistics.median(values) if values else None


def bt_on_big_heap(args, script, before, workdir):
    exe = os.path.join(workdir, "big_heap")
    source = os.path.join(os.path.dirname(os.path.realpath(__file__)), "big_heap.c")
    subprocess.run(["cc", "-O1", "-g", "-o", exe, source], check=True)
    ready = os.path.join(workdir, "big_heap.ready")
    proc = subprocess.Popen([exe, str(args.heap_mib), ready], stdin=subprocess.DEVNULL)
    db._children.append(proc)
    deadline = time.time() + 120
    while not os.path.exists(ready):
        if proc.poll() is not None or time.time() > deadline:
            raise SystemExit("big_heap did not start")
        time.sleep(0.1)
    variants = {"gdb_empty": ("gdb", gdb_argv(None, [], pid=proc.pid)),
                "gdb_bt": ("gdb", gdb_argv(None, ["bt"], pid=proc.pid)),
                "gdb_script_empty": ("gdb", gdb_argv(script, [], pid=proc.pid)),
                "gdb_script_bt": ("gdb", gdb_argv(script, ["bt"], pid=proc.pid))}
    if before:
        variants["gdb_before_empty"] = ("gdb", gdb_argv(before, [], pid=proc.pid))
        variants["gdb_before_bt"] = ("gdb", gdb_argv(before, ["bt"], pid=proc.pid))

    def check(name, text):
        if name.endswith("_bt") and "in parked" not in text:
            raise SystemExit("%s: no `parked` frame in bt:\n%s" % (name, text[-2000:]))
        if "[Python:" in text:
            raise SystemExit("%s: a Python decoration on a C program:\n%s" % (name, text[-2000:]))
    inside = run_variants(variants, args.repeat, args.timeout, check)
    result = {"heap_mib": args.heap_mib, "runs": inside}
    for label in ["gdb", "gdb_script"] + (["gdb_before"] if before else []):
        result[label + "_bt_ms"] = median(inside[label + "_bt"]) - median(inside[label + "_empty"])
    db.stop_targets()
    return result


def sequence_on_core(args, plugin, script, workdir):
    core = os.path.join(workdir, "scale-3.11.2.core")
    xz = os.path.join(args.fixtures, "cores", "3.11.2", "scale", "core.xz")
    with open(core, "wb") as out:
        subprocess.run(["xz", "-dc", xz], stdout=out, check=True)
    variants = {
        "lldb_empty": ("lldb", lldb_argv(plugin, [], core)),
        "lldb_lone": ("lldb", lldb_argv(plugin, ["py-bt --all"], core)),
        "lldb_sequence": ("lldb", lldb_argv(plugin, SEQUENCE, core)),
        "gdb_empty": ("gdb", gdb_argv(script, [], core=core)),
        "gdb_lone": ("gdb", gdb_argv(script, ["pyunwind py-bt --all"], core=core)),
        "gdb_sequence": ("gdb", gdb_argv(script, ["pyunwind " + c for c in SEQUENCE], core=core)),
    }

    def check(name, text):
        if not name.endswith("_empty") and 'File "' not in text:
            raise SystemExit("%s printed no Python frame:\n%s" % (name, text[-2000:]))
        if "pyunwind:" in text:
            raise SystemExit("%s failed:\n%s" % (name, text[-2000:]))
    inside = run_variants(variants, args.repeat, args.timeout, check)
    result = {"runs": inside}
    for d in ("lldb", "gdb"):
        empty = median(inside[d + "_empty"])
        lone = median(inside[d + "_lone"]) - empty
        sequence = median(inside[d + "_sequence"]) - empty
        result[d] = {"lone_ms": lone, "five_lone_ms": 5 * lone, "sequence_ms": sequence,
                     "ratio": (5 * lone) / sequence if sequence > 0 else None}
    os.unlink(core)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--heap-mib", type=int, default=2048)
    parser.add_argument("--before", help="a directory with an older pyunwind-gdb.py + library")
    parser.add_argument("--lldb-plugin")
    parser.add_argument("--gdb-script")
    parser.add_argument("--fixtures")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--json-out")
    parser.add_argument("--only", choices=["bt", "sequence"])
    args = parser.parse_args()
    workspace = db.find_workspace()
    plugin, script = db.find_artifacts(args, workspace)
    args.fixtures = db.find_fixtures(args, workspace)
    before = os.path.join(args.before, "pyunwind-gdb.py") if args.before else None
    results = {"machine": db.machine_info(), "repeat": args.repeat}
    with tempfile.TemporaryDirectory(prefix="pyunwind-stopcache-") as workdir:
        try:
            if args.only in (None, "bt"):
                results["bt_non_python"] = bt_on_big_heap(args, script, before, workdir)
            if args.only in (None, "sequence"):
                results["sequence_core"] = sequence_on_core(args, plugin, script, workdir)
        finally:
            db.stop_targets()
    summary = {k: {kk: vv for kk, vv in v.items() if kk != "runs"}
               for k, v in results.items() if isinstance(v, dict) and "runs" in v}
    print(json.dumps(summary, indent=2))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()

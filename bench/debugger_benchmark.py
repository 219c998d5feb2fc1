#!/usr/bin/python3
"""pyunwind `py-bt --all` in LLDB and GDB against GDB's own `thread apply all py-bt`.

    bazel run //bench:debugger_benchmark -- [--repeat 5] [--json-out FILE]
    python3 bench/debugger_benchmark.py [--repeat 5] [--json-out FILE]   (after bazel build)

Live targets: Debian's /usr/bin/python3.11 running the project's tests/data/scale.py (main
thread 1,500 frames deep + 24 threads x 60) and the same with --depth 5000.
Each is timed in these debugger invocations (batch mode, PATH=/usr/bin:/bin, attach by pid):

  lldb_base   lldb --batch: plugin load, process attach, process detach
  lldb_pyu    the same + `py-bt --all`
  gdb_pb      gdb -nx -batch -p PID: source pyunwind-gdb.py, detach
  gdb_pyu     the same + `pyunwind py-bt --all`
  gdb_base    gdb -nx -batch -p PID: detach            (pyunwind NOT sourced)
  gdb_own     the same + `thread apply all py-bt`     (CPython's python3.11-gdb.py, auto-loaded)

Added time = median(with command) - median(same invocation without it). All variants
run round-robin, N times each. The command is also timed from inside the debugger, with no
start-up noise: in GDB by time.perf_counter() in its Python around the command, in LLDB by its
timestamped command log (`log enable -T`) from a `version` before it to one after. One extra
run per debugger with `--stats` gives pyunwind's reads, bytes and in-core time.

Cores: the `scale` fixture cores of every version, read with no executable, pyunwind only
(GDB's own py-bt needs the interpreter's symbols).

Stdlib only; kills every process it starts.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.realpath(__file__))
# The live target: the project's own scenario (its runfiles link resolves into the checkout).
SCALE = os.path.join(HERE, "..", "tests", "data", "scale.py")
VERSIONS = ["3.11.2", "3.12.6", "3.13.15", "3.14.7"]
DEBUGGER_ENV_PATH = "/usr/bin:/bin"
# A frame line as pyunwind and CPython's py-bt print it (not LLDB's own Python tracebacks).
FRAME_LINE = re.compile(r'^\s*File "(?!<string>)[^"]*", line (\d+|\?), in ')
STATS_LINE = re.compile(
    r"stats: (\d+) target reads \((\d+) bytes, (\d+) failed\), (\d+) cache hits, (\d+) misses, "
    r"(\d+) frames, ([\d.]+) reads per frame, ([\d.]+) ms")
ELAPSED_LINE = re.compile(r"^BENCH_ELAPSED ([\d.eE+-]+)$", re.M)

_children = []  # Popen objects of the python3.11 targets we started


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Locating things


def find_workspace():
    for candidate in (os.environ.get("BUILD_WORKSPACE_DIRECTORY"), os.path.dirname(HERE)):
        if candidate and os.path.isfile(os.path.join(candidate, "WORKSPACE")):
            return candidate
    return None


def find_artifacts(args, workspace):
    """(lldb plugin, gdb script), each from: its flag, $PYUNWIND_INSTALL_DIR, this target's
    runfiles, then the workspace's bazel-bin."""
    def roots():
        if os.environ.get("PYUNWIND_INSTALL_DIR"):
            yield os.environ["PYUNWIND_INSTALL_DIR"], True
        if os.environ.get("RUNFILES_DIR"):
            yield os.path.join(os.environ["RUNFILES_DIR"], "pyunwind"), False
        if workspace:
            yield os.path.join(workspace, "bazel-bin"), False

    def find(flag, subdir, name):
        if flag:
            return os.path.realpath(flag) if os.path.isfile(flag) else None
        for root, flat in roots():
            path = os.path.join(root, name) if flat else os.path.join(root, subdir, name)
            if os.path.isfile(path):
                # The GDB script loads libpyunwind_gdb.so from its own (real) directory.
                return os.path.realpath(path)
        return None

    plugin = find(args.lldb_plugin, "lldb_plugin", "libpyunwind_lldb.so")
    script = find(args.gdb_script, "gdb_bridge", "pyunwind-gdb.py")
    if not plugin or not script:
        raise SystemExit("cannot find libpyunwind_lldb.so and pyunwind-gdb.py: run "
                         "`bazel build //lldb_plugin:libpyunwind_lldb.so //gdb_bridge:gdb_files`, "
                         "or pass --lldb-plugin/--gdb-script, or set PYUNWIND_INSTALL_DIR")
    return plugin, script


def find_fixtures(args, workspace):
    for candidate in (args.fixtures, os.environ.get("PYUNWIND_FIXTURES"),
                      workspace and os.path.join(workspace, "..", "shared", "fixtures")):
        if candidate and os.path.isdir(os.path.join(candidate, "cores")):
            return os.path.realpath(candidate)
    raise SystemExit("cannot find the shared fixtures (pass --fixtures DIR)")


# ---------------------------------------------------------------------------------------------
# Processes


def debugger_env():
    env = dict(os.environ)
    env["PATH"] = DEBUGGER_ENV_PATH
    for var in ("PYTHONHOME", "PYTHONPATH", "PYENV_VERSION"):
        env.pop(var, None)
    return env


def run_timed(argv, timeout):
    """Runs a debugger; returns (seconds, stdout text, returncode). Kills its group on timeout."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=debugger_env(),
                                start_new_session=True)
        # A blocking wait(): Popen.wait(timeout=...) polls with sleeps of up to 50 ms, which
        # would round every time up to the next poll. A timer kills the run's group instead.
        timed_out = []

        def kill_group():
            timed_out.append(True)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill_group)
        timer.start()
        try:
            rc = proc.wait()
        finally:
            timer.cancel()
        if timed_out:
            raise RuntimeError("timed out after %ss: %s" % (timeout, " ".join(argv)))
        elapsed = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return elapsed, text, rc


def start_target(argv, cwd, truth_path, timeout=60):
    log("starting: " + " ".join(argv))
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE,
                            # no __pycache__ beside the checkout's scenario_truth.py
                            env={"PATH": DEBUGGER_ENV_PATH, "PYTHONDONTWRITEBYTECODE": "1"})
    _children.append(proc)
    deadline = time.time() + timeout
    while not os.path.exists(truth_path):
        if proc.poll() is not None:
            raise SystemExit("target exited early: " + proc.stderr.read().decode(errors="replace"))
        if time.time() > deadline:
            raise SystemExit("target wrote no truth within %ss" % timeout)
        time.sleep(0.1)
    with open(truth_path) as f:
        truth = json.load(f)
    if truth["pid"] != proc.pid:
        raise SystemExit("truth pid %s is not the child's %s" % (truth["pid"], proc.pid))
    return proc, truth


def stop_targets():
    while _children:
        proc = _children.pop()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


# ---------------------------------------------------------------------------------------------
# Debugger command lines


GDB_T0 = "python import time as _bench_time; _bench_t0 = _bench_time.perf_counter()"
GDB_T1 = "python print('BENCH_ELAPSED', _bench_time.perf_counter() - _bench_t0)"
# LLDB's own Python is broken on this machine; LLDB's timestamped command log brackets the
# command instead: from the start of a `version` before it to the start of one after it (no
# fork, no Python; the baseline, two `version`s in a row, subtracts the first's own time).
LLDB_LOG = os.path.join(tempfile.gettempdir(), "pyunwind-bench-lldb-%d.log" % os.getpid())
LLDB_MARK = "version"
LLDB_MARK_LINE = re.compile(r"^(\d+\.\d+) Processing command: %s$" % LLDB_MARK, re.M)


def lldb_bracket_seconds():
    """The time between the two marks in LLDB_LOG, or None; the log is removed."""
    try:
        with open(LLDB_LOG) as f:
            marks = [float(t) for t in LLDB_MARK_LINE.findall(f.read())]
    except OSError:
        return None
    finally:
        discard_lldb_log()
    return marks[-1] - marks[0] if len(marks) == 2 else None


def lldb_bracketed(commands):
    """LLDB -o arguments that run `commands` between the two marks of LLDB_LOG."""
    argv = ["-o", "log enable -T -f %s lldb commands" % LLDB_LOG, "-o", LLDB_MARK]
    for command in commands:
        argv += ["-o", command]
    return argv + ["-o", LLDB_MARK]


def discard_lldb_log():
    try:
        os.unlink(LLDB_LOG)
    except FileNotFoundError:
        pass


def lldb_argv(plugin, command, pid=None, core=None):
    argv = ["/usr/bin/lldb", "--batch", "--no-lldbinit"]
    if core:
        argv += ["-c", core]
    argv += ["-o", "plugin load " + plugin]
    if pid:
        argv += ["-o", "process attach -p %d" % pid]
    argv += lldb_bracketed([command] if command else [])
    if pid:
        argv += ["-o", "process detach"]
    return argv


def gdb_argv(script, command, pid=None, core=None):
    argv = ["/usr/bin/gdb", "-nx", "-batch"]
    if pid:
        argv += ["-p", str(pid)]
    if core:
        argv += ["-c", core]
    if script:
        argv += ["-ex", "source " + script]
    argv += ["-ex", GDB_T0]
    if command:
        argv += ["-ex", command]
    argv += ["-ex", GDB_T1]
    if pid:
        argv += ["-ex", "detach"]
    return argv


def live_variants(plugin, script, pid):
    return {
        "lldb_base": lldb_argv(plugin, None, pid=pid),
        "lldb_pyu": lldb_argv(plugin, "py-bt --all", pid=pid),
        "gdb_pb": gdb_argv(script, None, pid=pid),
        "gdb_pyu": gdb_argv(script, "pyunwind py-bt --all", pid=pid),
        "gdb_base": gdb_argv(None, None, pid=pid),
        "gdb_own": gdb_argv(None, "thread apply all py-bt", pid=pid),
    }


def core_variants(plugin, script, core):
    return {
        "lldb_base": lldb_argv(plugin, None, core=core),
        "lldb_pyu": lldb_argv(plugin, "py-bt --all", core=core),
        "gdb_pb": gdb_argv(script, None, core=core),
        "gdb_pyu": gdb_argv(script, "pyunwind py-bt --all", core=core),
    }


# (label, variant with the command, its baseline)
COMPARISONS = [
    ("pyunwind in LLDB", "lldb_pyu", "lldb_base"),
    ("pyunwind in GDB", "gdb_pyu", "gdb_pb"),
    ("GDB's own py-bt", "gdb_own", "gdb_base"),
]


# ---------------------------------------------------------------------------------------------
# Measuring


def measure(name, variants, repeat, expected_frames, plugin, script, timeout, pid=None,
            core=None):
    """Times every variant `repeat` times round-robin; returns a result dict for one target."""
    times = {v: [] for v in variants}
    inside = {v: [] for v in variants}
    frames_seen = {}
    for i in range(repeat):
        for variant, argv in variants.items():
            elapsed, text, rc = run_timed(argv, timeout)
            if rc != 0:
                log("warning: %s %s exited with %d:\n%s" % (name, variant, rc, text[-2000:]))
            times[variant].append(elapsed)
            m = ELAPSED_LINE.search(text)
            bracket = lldb_bracket_seconds() if argv[0].endswith("lldb") else None
            if m:
                inside[variant].append(float(m.group(1)))
            elif bracket is not None:
                inside[variant].append(bracket)
            frames_seen[variant] = sum(1 for line in text.splitlines() if FRAME_LINE.match(line))
        log("  %s: repeat %d/%d done (%s)" % (name, i + 1, repeat, ", ".join(
            "%s %.0f ms" % (v, times[v][-1] * 1e3) for v in variants)))

    # One more run of each pyunwind variant with --stats.
    stats = {}
    for label, argv in (("lldb", lldb_argv(plugin, "py-bt --all --stats", pid=pid, core=core)),
                        ("gdb", gdb_argv(script, "pyunwind py-bt --all --stats", pid=pid,
                                         core=core))):
        _, text, _ = run_timed(argv, timeout)
        discard_lldb_log()
        m = STATS_LINE.search(text)
        if not m:
            log("warning: no stats line from %s on %s:\n%s" % (label, name, text[-2000:]))
            continue
        reads, nbytes, failed, hits, misses, frames = (int(m.group(k)) for k in range(1, 7))
        stats[label] = {
            "target_reads": reads, "target_bytes": nbytes, "failed_reads": failed,
            "cache_hits": hits, "cache_misses": misses, "frames": frames,
            "reads_per_frame": reads / frames if frames else None,
            "bytes_per_frame": nbytes / frames if frames else None,
            "core_ms": float(m.group(8)),
        }

    med = {v: statistics.median(t) * 1e3 for v, t in times.items()}
    result = {"target": name, "expected_frames": expected_frames, "repeat": repeat,
              "median_ms": med, "all_ms": {v: [x * 1e3 for x in t] for v, t in times.items()},
              "inside_median_ms": {v: statistics.median(t) * 1e3 for v, t in inside.items() if t},
              "frames_printed": frames_seen, "stats": stats, "rows": []}
    for label, with_cmd, base in COMPARISONS:
        if with_cmd not in variants:
            continue
        added = med[with_cmd] - med[base]
        inside_ms = None
        if inside.get(with_cmd) and inside.get(base):
            inside_ms = (statistics.median(inside[with_cmd]) - statistics.median(inside[base])) * 1e3
        st = stats.get("lldb" if with_cmd.startswith("lldb") else "gdb") \
            if "pyu" in with_cmd else None
        result["rows"].append({
            "tool": label, "total_ms": med[with_cmd], "baseline_ms": med[base],
            "baseline_sd_ms": statistics.stdev(times[base]) * 1e3 if len(times[base]) > 1 else None,
            "added_ms": added, "inside_debugger_ms": inside_ms,
            "frames_printed": frames_seen.get(with_cmd),
            "reads_per_frame": st and st["reads_per_frame"],
            "bytes_per_frame": st and st["bytes_per_frame"],
            "target_reads": st and st["target_reads"],
            "core_ms": st and st["core_ms"],
        })
    own = next((r for r in result["rows"] if r["tool"] == "GDB's own py-bt"), None)
    for row in result["rows"]:
        if own and row is not own and row["added_ms"] > 0:
            row["ratio_gdb_own_over_this"] = own["added_ms"] / row["added_ms"]
        if own and row is not own and row.get("inside_debugger_ms") and own.get("inside_debugger_ms"):
            row["ratio_inside"] = own["inside_debugger_ms"] / row["inside_debugger_ms"]
    return result


# ---------------------------------------------------------------------------------------------
# Output


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def print_table(results, out=sys.stdout):
    head = ("%-24s %-16s %8s %8s %7s %8s %9s %6s %7s %7s %8s %7s %7s" % (
        "target", "tool", "total", "base", "base sd", "added", "in-dbg", "frames",
        "reads/f", "bytes/f", "core ms", "ratio", "ratio*"))
    print(head, file=out)
    print("-" * len(head), file=out)
    for res in results:
        for row in res["rows"]:
            print("%-24s %-16s %8.1f %8.1f %7s %8.1f %9s %6s %7s %7s %8s %7s %7s" % (
                res["target"], row["tool"], row["total_ms"], row["baseline_ms"],
                fmt(row["baseline_sd_ms"], ".0f"), row["added_ms"],
                fmt(row["inside_debugger_ms"], ".1f"), fmt(row["frames_printed"], "d"),
                fmt(row["reads_per_frame"], ".3f"), fmt(row["bytes_per_frame"], ".0f"),
                fmt(row["core_ms"], ".1f"), fmt(row.get("ratio_gdb_own_over_this"), ".0f"),
                fmt(row.get("ratio_inside"), ".0f")), file=out)
    print(file=out)
    print("Times in ms, medians of %s runs. total/base: wall time of the debugger run with / "
          "without the command;\nbase sd: standard deviation of the baseline runs (start-up + attach noise); added = total - base. in-dbg: the command timed inside the "
          "debugger, minus the same bracket with\nno command (GDB: perf_counter in its Python; "
          "LLDB: its timestamped command log, from a `version` before to one after).\nreads/f, bytes/f, core ms: pyunwind "
          "--stats from one extra run (core ms = the core's own time,\nnot the printing). "
          "ratio = GDB's own added / this added; ratio* = the same on in-dbg times."
          % (results[0]["repeat"] if results else "?"), file=out)


def check_targets(results):
    """The issue's targets on the live 1,500-frame scale scenario."""
    checks = []
    for res in results:
        if not res["target"].startswith("live scale 1500"):
            continue
        for row in res["rows"]:
            if not row["tool"].startswith("pyunwind"):
                continue
            for kind, ratio, added in (
                    ("wall", row.get("ratio_gdb_own_over_this"), row["added_ms"]),
                    ("in-dbg", row.get("ratio_inside"), row["inside_debugger_ms"])):
                if added is not None and added <= 0:
                    checks.append(("%s: <= 1/100 of GDB's own, %s (ratio >= 100)"
                                   % (row["tool"], kind), None,
                                   "n/a: added %.1f ms is below the start-up noise (base sd %s ms)"
                                   % (added, fmt(row["baseline_sd_ms"], ".0f"))))
                    continue
                checks.append(("%s: <= 1/100 of GDB's own, %s (ratio >= 100)" % (row["tool"], kind),
                               ratio is not None and ratio >= 100, fmt(ratio, ".0f")))
                checks.append(("%s: added < 50 ms, %s" % (row["tool"], kind),
                               added is not None and added < 50, fmt(added, ".1f") + " ms"))
            rpf = row["reads_per_frame"]
            checks.append(("%s: <= 1.5 reads per frame" % row["tool"],
                           rpf is not None and rpf <= 1.5, fmt(rpf, ".3f")))
    return checks


# ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description="pyunwind vs GDB's own py-bt, side by side")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each variant (default 5)")
    parser.add_argument("--json-out", help="also write the results as JSON to this file")
    parser.add_argument("--fixtures", help="shared fixtures dir (default $PYUNWIND_FIXTURES, "
                        "else <workspace>/../shared/fixtures)")
    parser.add_argument("--lldb-plugin", help="libpyunwind_lldb.so (default: bazel-bin)")
    parser.add_argument("--gdb-script", help="pyunwind-gdb.py (default: bazel-bin)")
    parser.add_argument("--python", default="/usr/bin/python3.11", help="live target interpreter")
    parser.add_argument("--depths", default="1500,5000",
                        help="main-thread depths of the live targets (tests/data/scale.py --depth)")
    parser.add_argument("--versions", default=",".join(VERSIONS), help="fixture core versions")
    parser.add_argument("--no-live", action="store_true", help="skip the live processes")
    parser.add_argument("--no-cores", action="store_true", help="skip the fixture cores")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per debugger run")
    args = parser.parse_args()

    workspace = find_workspace()
    plugin, script = find_artifacts(args, workspace)
    fixtures = None if args.no_cores else find_fixtures(args, workspace)
    for tool in ("/usr/bin/lldb", "/usr/bin/gdb", "/usr/bin/xz"):
        if not os.path.exists(tool):
            raise SystemExit("missing " + tool)
    log("lldb plugin: %s\ngdb script:  %s\nfixtures:    %s" % (plugin, script, fixtures))

    tmp = tempfile.mkdtemp(prefix="pyunwind-debugger-bench-")
    results = []
    try:
        if not args.no_live:
            for depth in (int(d) for d in args.depths.split(",") if d):
                truth_path = os.path.join(tmp, "truth-%d.json" % depth)
                argv = [args.python, SCALE, truth_path, "--depth", str(depth)]
                proc, truth = start_target(argv, os.path.dirname(SCALE), truth_path)
                expected = sum(len(t["frames"]) for t in truth["threads"])
                name = "live scale %d (%s)" % (depth, truth["python"]["version"])
                log("%s: pid %d, %d threads, %d frames" % (name, proc.pid, len(truth["threads"]),
                                                            expected))
                try:
                    results.append(measure(name, live_variants(plugin, script, proc.pid),
                                           args.repeat, expected, plugin, script, args.timeout,
                                           pid=proc.pid))
                finally:
                    stop_targets()
        if not args.no_cores:
            for version in (v for v in args.versions.split(",") if v):
                xz = os.path.join(fixtures, "cores", version, "scale", "core.xz")
                core = os.path.join(tmp, "%s-scale.core" % version)
                with open(core, "wb") as f:
                    subprocess.run(["/usr/bin/xz", "-dc", xz], stdout=f, check=True)
                with open(os.path.join(fixtures, "cores", version, "scale", "truth.json")) as f:
                    expected = sum(len(t["frames"]) for t in json.load(f)["threads"])
                name = "core scale %s" % version
                log("%s: %d frames" % (name, expected))
                results.append(measure(name, core_variants(plugin, script, core), args.repeat,
                                       expected, plugin, script, args.timeout, core=core))
                os.unlink(core)
    finally:
        stop_targets()
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print_table(results)
    checks = check_targets(results)
    if checks:
        print("\nTargets (live scale 1500):")
        for what, ok, value in checks:
            print("  %-4s %-60s %s" % ({True: "PASS", False: "MISS", None: "?"}[ok], what, value))
    mismatched = [(r["target"], v, n) for r in results for v, n in r["frames_printed"].items()
                  if v.endswith(("pyu", "own")) and n != r["expected_frames"]]
    for target, variant, n in mismatched:
        print("note: %s %s printed %d frames, the truth has %d" % (
            target, variant, n, next(r["expected_frames"] for r in results
                                     if r["target"] == target)))
    if args.json_out:
        doc = {"machine": machine_info(), "plugin": plugin, "gdb_script": script,
               "results": results,
               "targets": [{"check": w, "pass": ok, "value": v} for w, ok, v in checks]}
        with open(args.json_out, "w") as f:
            json.dump(doc, f, indent=1)
        print("\nwrote " + args.json_out)


def machine_info():
    info = {"cpus": os.cpu_count(), "loadavg_at_end": os.getloadavg()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    for tool, flag in (("lldb", "--version"), ("gdb", "--version")):
        try:
            out = subprocess.run(["/usr/bin/" + tool, flag], capture_output=True, text=True,
                                 env=debugger_env(), timeout=30).stdout
            info[tool] = out.splitlines()[0] if out else None
        except Exception:
            info[tool] = None
    return info


if __name__ == "__main__":
    def _on_signal(signum, _frame):
        stop_targets()
        sys.exit(128 + signum)
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    main()

"""py-tasks --json at scale: 10k, 100k, 1M asyncio tasks, live and from a core.

usage: /usr/bin/python3 bench/tasks_benchmark.py [--counts 10000,100000,1000000]
           [--repeat 3] [--json-out FILE] [--lldb-plugin SO] [--gdb-script PY]

For each count, starts Debian's /usr/bin/python3.11 on tests/data/asyncio_many.py N (N tasks
parked in mid -> leaf -> Event.wait, and the running main task), then runs each debugger in
batch mode (PATH=/usr/bin:/bin) attached by pid, without a command, with `py-tasks --json
--stats`, and with `py-tasks --json --stats --outfile FILE` (the JSON to a file, not through
the debugger's output):

  lldb --batch --no-lldbinit -o 'plugin load SO' -o 'process attach -p PID' [-o CMD] -o 'process detach'
  gdb -nx -batch -p PID -ex 'source pyunwind-gdb.py' [-ex CMD] -ex detach

then writes a core of the process with gdb's `gcore` into a temporary directory (deleted at the
end: the 1M core is about 2.5 GB), and does the same on the core opened without executable
(`lldb --core`, `gdb -c`). Reported per debugger and target: the median wall time with the
command and without (added = the difference), the debugger's peak RSS with and without (from
/usr/bin/time), and pyunwind's own figures from --stats (target reads, bytes, ms inside pyunwind,
the largest share of any kind of the work budget spent). The
command's output (the JSON, ~440 bytes a task) goes to a temporary file, as a user's
`| tee` would; the tasks in it (or in FILE) are counted against N + 1.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3.11"
ENV = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
COMMAND = "py-tasks --json --stats"


def find(path_in_runfiles, built):
    runfiles = os.environ.get("RUNFILES_DIR")
    if runfiles:
        candidate = os.path.join(runfiles, "pyunwind", path_in_runfiles)
        if os.path.exists(candidate):
            return candidate
    return os.path.join(ROOT, "bazel-bin", built)


def run(argv, out_path):
    """Runs argv with stdout to out_path; returns (seconds, peak RSS in MB, exit status). The
    RSS is /usr/bin/time's (%M): wait4's own ru_maxrss would count this script's memory, which
    a forked child holds until it execs."""
    rss_path = out_path + ".rss"
    with open(out_path, "wb") as out:
        start = time.monotonic()
        status = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_path] + argv, stdout=out,
                                stderr=subprocess.STDOUT, env=ENV,
                                stdin=subprocess.DEVNULL).returncode
        elapsed = time.monotonic() - start
    with open(rss_path) as f:
        rss_kb = int(f.read().split()[-1])
    return elapsed, rss_kb / 1024.0, status


def lldb_argv(plugin, target, command):
    argv = ["lldb", "--batch", "--no-lldbinit", "-o", "plugin load " + plugin]
    if "pid" in target:
        argv += ["-o", "process attach -p %d" % target["pid"]]
    else:
        argv += ["--core", target["core"]]
    if command:
        argv += ["-o", command]
    if "pid" in target:
        argv += ["-o", "process detach"]
    return argv


def gdb_argv(script, target, command):
    argv = ["gdb", "-nx", "-batch"]
    argv += ["-p", str(target["pid"])] if "pid" in target else ["-c", target["core"]]
    argv += ["-ex", "source " + script]
    if command:
        argv += ["-ex", command]
    if "pid" in target:
        argv += ["-ex", "detach"]
    return argv


def stats_of(path):
    """pyunwind's --stats and the task count, from the JSON document in a debugger's output."""
    with open(path, "rb") as f:
        data = f.read().decode("utf-8", "replace")
    start = data.find('{"python"')
    if start < 0:
        return None, 0
    end = data.find("\n", start)
    doc = json.loads(data[start:end])
    return doc.get("stats"), len(doc["tasks"])


def measure(name, make_argv, target, repeat, scratch, expect_tasks):
    rows = {"with": [], "without": [], "outfile": []}
    stats = None
    outfile = os.path.join(scratch, "tasks.json")
    for _ in range(repeat):
        for variant, command in (("without", None), ("with", COMMAND),
                                 ("outfile", COMMAND + " --outfile " + outfile)):
            out = os.path.join(scratch, "out.txt")
            seconds, rss, status = run(make_argv(target, command), out)
            if status != 0:
                raise SystemExit("%s failed (%d): see %s" % (name, status, out))
            rows[variant].append((seconds, rss))
            if command:
                stats, tasks = stats_of(outfile if variant == "outfile" else out)
                if tasks != expect_tasks:
                    raise SystemExit("%s: %d tasks in the JSON, want %d" % (name, tasks, expect_tasks))
    med = lambda v, i: statistics.median(r[i] for r in rows[v])
    return {
        "debugger": name,
        "time_s": med("with", 0), "base_s": med("without", 0),
        "added_s": med("with", 0) - med("without", 0),
        "rss_mb": med("with", 1), "base_rss_mb": med("without", 1),
        "added_rss_mb": med("with", 1) - med("without", 1),
        # The same command with --outfile: the JSON goes to a file, not through the debugger.
        "outfile_added_s": med("outfile", 0) - med("without", 0),
        "outfile_added_rss_mb": med("outfile", 1) - med("without", 1),
        "target_reads": stats["target_reads"], "target_mb": stats["target_bytes"] / 2**20,
        "pyunwind_ms": stats["elapsed_ms"],
        # The largest share of any kind of the work budget the command spent.
        "work_budget_used": max(w["spent"] / w["budget"] for w in stats["work"].values()),
        "work": stats["work"],
    }


def start_scenario(count, scratch):
    truth = os.path.join(scratch, "truth.json")
    proc = subprocess.Popen([PYTHON, os.path.join(ROOT, "tests/data/asyncio_many.py"), str(count),
                             truth], env=ENV, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while not os.path.exists(truth):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("asyncio_many.py %d did not start" % count)
        time.sleep(0.2)
    return proc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--counts", default="10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json-out")
    parser.add_argument("--lldb-plugin", default=find("lldb_plugin/libpyunwind_lldb.so",
                                                      "lldb_plugin/libpyunwind_lldb.so"))
    parser.add_argument("--gdb-script", default=find("gdb_bridge/pyunwind-gdb.py",
                                                     "gdb_bridge/pyunwind-gdb.py"))
    parser.add_argument("--no-core", action="store_true", help="live only")
    args = parser.parse_args()
    results = []
    lldb = lambda target, command: lldb_argv(args.lldb_plugin, target, command)
    gdb = lambda target, command: gdb_argv(args.gdb_script, target, command)
    for count in [int(c) for c in args.counts.split(",")]:
        scratch = tempfile.mkdtemp(prefix="pyu-tasks-bench-")
        proc = start_scenario(count, scratch)
        try:
            targets = [("live", {"pid": proc.pid})]
            if not args.no_core:
                core = os.path.join(scratch, "core")
                subprocess.run(["gdb", "-nx", "-batch", "-p", str(proc.pid), "-ex",
                                "gcore " + core, "-ex", "detach"], env=ENV, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                targets.append(("core", {"core": core}))
            for where, target in targets:
                for name, make in (("lldb", lldb), ("gdb", gdb)):
                    row = measure(name, make, target, args.repeat, scratch, count + 1)
                    row.update({"tasks": count, "target": where})
                    results.append(row)
                    print("%8d %-4s %-4s added %6.2f s (base %5.2f)  rss +%5.0f MB (base %4.0f)  "
                          "--outfile: added %6.2f s, rss +%5.0f MB  "
                          "%6d reads %7.1f MB  pyunwind %7.1f ms  work budget %4.1f %% used" % (
                              count, where, name, row["added_s"], row["base_s"],
                              row["added_rss_mb"], row["base_rss_mb"], row["outfile_added_s"],
                              row["outfile_added_rss_mb"], row["target_reads"],
                              row["target_mb"], row["pyunwind_ms"],
                              100 * row["work_budget_used"]), flush=True)
        finally:
            proc.kill()
            proc.wait()
            shutil.rmtree(scratch, ignore_errors=True)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

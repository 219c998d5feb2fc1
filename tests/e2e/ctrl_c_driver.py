# Ctrl-C typed at a debugger's prompt while a pyunwind command runs (tests/e2e/ctrl_c_test.cc).
#
#   python3 ctrl_c_driver.py DEBUGGER PLUGIN_OR_SCRIPT PYTHON SCENARIO TASKS PORT SCRATCH
#
# DEBUGGER: the path of an lldb or gdb binary (its environment is this one's).
#
# In a PID namespace of its own (so that the debugger cannot read /proc/PID/mem and reads
# through its server: a command of seconds), PYTHON runs SCENARIO (asyncio_many.py) with TASKS
# tasks, served on 127.0.0.1:PORT by lldb-server or gdbserver. The debugger runs in a
# terminal (a pty), connects, loads pyunwind, runs `py-tasks --summary`, and gets Ctrl-C
# 0.2 s later; then runs the same command again. Prints what the terminal showed for each
# command between lines "=== first" / "=== second" / "=== end", or one line "skip: WHY".
import os
import pty
import select
import signal
import subprocess
import sys
import time

LLDB_SERVER = "/usr/lib/llvm-14/bin/lldb-server"
GDB_SERVER = "/usr/bin/gdbserver"


def main():
    # A test that times out ends this with SIGTERM: the namespace goes too (finally, below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    binary, pyunwind, python, scenario, tasks, port, scratch = sys.argv[1:8]
    debugger = "lldb" if "lldb" in os.path.basename(binary) else "gdb"
    server = LLDB_SERVER if debugger == "lldb" else GDB_SERVER
    for needed in ("/usr/bin/unshare", server):
        if not os.path.exists(needed):
            print("skip: no %s" % needed)
            return 0
    probe = subprocess.run(["unshare", "-fp", "--mount-proc", "true"], capture_output=True,
                           text=True)
    if probe.returncode != 0:
        print("skip: cannot make a PID namespace here (unshare -fp --mount-proc: %s)"
              % probe.stderr.strip())
        return 0
    truth = os.path.join(scratch, "ctrl-c-truth-%s.json" % debugger)
    if os.path.exists(truth):
        os.unlink(truth)  # an earlier run's
    serve = ('exec "$1" gdbserver --attach "$child" "127.0.0.1:$2"' if debugger == "lldb"
             else 'exec "$1" --attach "127.0.0.1:$2" "$child"')
    # PID 1 of the namespace is this shell, then the server: when it ends (the debugger
    # detached, or unshare ended: --kill-child), the scenario ends.
    namespace = subprocess.Popen(
        ["unshare", "-fp", "--mount-proc", "--kill-child", "sh", "-c",
         '"$3" "$4" "$5" "$6" > /dev/null 2>&1 & child=$!\n'
         'while [ ! -s "$6" ]; do sleep 0.1; done\n' + serve,
         "sh", server, port, python, scenario, tasks, truth],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while not (os.path.exists(truth) and os.path.getsize(truth) > 0):
            if namespace.poll() is not None or time.monotonic() > deadline:
                print("the namespaced scenario did not start")
                return 1
            time.sleep(0.2)
        while not listening(int(port)):  # the server attaches, then listens
            if namespace.poll() is not None or time.monotonic() > deadline:
                print("the debug server did not listen on port %s" % port)
                return 1
            time.sleep(0.1)
        return run_debugger(binary, debugger, pyunwind, port)
    finally:
        namespace.kill()
        namespace.wait()


def listening(port):
    """Whether a socket listens on 127.0.0.1:port or on every address (gdbserver does),
    from /proc/net/tcp (state 0A), asked without connecting: the servers take one connection."""
    try:
        with open("/proc/net/tcp") as table:
            rows = [line.split() for line in table.readlines()[1:]]
    except OSError:
        return False
    return any(row[1] in ("0100007F:%04X" % port, "00000000:%04X" % port) and row[3] == "0A"
               for row in rows)


def run_debugger(binary, debugger, pyunwind, port):
    prompt = b"(lldb)" if debugger == "lldb" else b"(gdb)"
    argv = ([binary, "--no-lldbinit"] if debugger == "lldb"
            else [binary, "-nx", "-q", "-iex", "set pagination off"])
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    shown = bytearray()

    def read_until(marker, seconds, since):
        """Reads what the terminal shows until `marker` is in it from `since` on (it may be
        there already: read with the chunk an earlier wait ended at) or `seconds` pass."""
        end = time.monotonic() + seconds
        while marker is None or marker not in shown[since:]:
            if time.monotonic() >= end:
                return False
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return False
                shown.extend(chunk)
        return True

    def run(command, marker, seconds):
        since = len(shown)
        os.write(fd, command.encode() + b"\n")
        read_until(marker, seconds, since)
        return since

    try:
        read_until(prompt, 30, 0)
        if debugger == "lldb":
            run("gdb-remote 127.0.0.1:" + port, b"stopped", 60)
            run("plugin load " + pyunwind, prompt, 30)
        else:
            run("source " + pyunwind, prompt, 30)
            run("target remote 127.0.0.1:" + port, b"clock_nanosleep", 60)
        read_until(None, 1, 0)
        first = run("py-tasks --summary", None, 0.2)
        os.write(fd, b"\x03")
        read_until(prompt, 120, first + 1)
        read_until(None, 0.5, 0)
        second = run("py-tasks --summary", b"running: main", 120)
        read_until(prompt, 30, second + 1)
        end = len(shown)
        run("detach", prompt, 30)
        run("quit", None, 5)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    sys.stdout.write("=== first\n%s\n=== second\n%s\n=== end\n" % (
        shown[first:second].decode("utf-8", "replace"),
        shown[second:end].decode("utf-8", "replace")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# pyunwind in two minutes: install what is missing, build and install it, start
# demo/demo.py under Debian's python3.11, show `py-bt --all` and `py-tasks --tree`
# from LLDB and then from GDB, and stop the demo.
#
#   bash demo/run_demo.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-/usr/bin/python3.11}
tmp=$(mktemp -d /tmp/pyunwind-demo.XXXXXX)
demo_pid=""

cleanup() {
  if [[ -n "$demo_pid" ]]; then
    kill -KILL "$demo_pid" 2>/dev/null || true
    wait "$demo_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

cd "$root"
.ci/install-packages
# Debian 11's C library, which pyunwind is built against (toolchain/README.md); once per machine.
.ci/fetch-sysroot || exit 1
# Bazel's own output goes to a log, shown only if the build fails.
echo "== building pyunwind (bazel build //:install; log: $tmp/build.log)"
if ! bazel build //:install >"$tmp/build.log" 2>&1; then
  cat "$tmp/build.log" >&2
  echo "the build failed (above)" >&2
  exit 1
fi
bazel-bin/install "$tmp/pyunwind" >/dev/null
echo "== installed into $tmp/pyunwind"

# The debuggers run with PATH=/usr/bin:/bin, so that a pyenv python3 first on PATH does not
# confuse LLDB's embedded Python.
export PATH=/usr/bin:/bin

"$python" "$root/demo/demo.py" "$tmp/demo.pid" &
demo_pid=$!
for _ in $(seq 300); do
  [[ -s "$tmp/demo.pid" ]] && break
  kill -0 "$demo_pid" 2>/dev/null || { echo "the demo exited early" >&2; exit 1; }
  sleep 0.1
done
[[ -s "$tmp/demo.pid" ]] || { echo "the demo did not get ready within 30 s" >&2; exit 1; }

echo
echo "===== LLDB: py-bt --all, py-tasks --tree (demo pid $demo_pid) ====="
# LLDB 14 on Debian prints a Python traceback ending in "ModuleNotFoundError: No module named
# 'lldb.embedded_interpreter'" at start-up (its own Python package is broken there); pyunwind is
# C++ and does not use it. Those three lines are left out of LLDB's stderr, with one note.
status=0
lldb --batch --no-lldbinit \
  -o "plugin load $tmp/pyunwind/libpyunwind_lldb.so" \
  -o "py-bt --all" \
  -o "py-tasks --tree" \
  -p "$demo_pid" </dev/null 2>"$tmp/lldb.err" || status=$?
"$python" - "$tmp/lldb.err" <<'PY'
import sys
noise = ["Traceback (most recent call last):",
         '  File "<string>", line 1, in <module>',
         "ModuleNotFoundError: No module named 'lldb.embedded_interpreter'"]
lines = open(sys.argv[1]).read().splitlines()
out, i, hidden = [], 0, False
while i < len(lines):
    if lines[i:i + 3] == noise:
        i, hidden = i + 3, True
        continue
    out.append(lines[i])
    i += 1
for line in out:
    print(line, file=sys.stderr)
if hidden:
    print("(LLDB's start-up error about lldb.embedded_interpreter, its own broken Python, was"
          " left out: pyunwind does not use LLDB's Python)")
PY
((status == 0)) || echo "(lldb exited with status $status)"

echo
echo "===== GDB: py-bt --all, py-tasks (demo pid $demo_pid) ====="
gdb -batch -nx \
  -ex "source $tmp/pyunwind/pyunwind-gdb.py" \
  -ex "py-bt --all" \
  -ex "py-tasks" \
  -p "$demo_pid" </dev/null || echo "(gdb exited with status $?)"

#!/usr/bin/env bash
# `bazel run //bench:tasks_benchmark -- ARGS`: runs tasks_benchmark.py with Debian's
# /usr/bin/python3. The LLDB plugin, the GDB files and the scenario come from the runfiles.
set -euo pipefail
here="${RUNFILES_DIR:-$0.runfiles}/pyunwind"
if [[ ! -f "$here/bench/tasks_benchmark.py" ]]; then
  here="$(cd "$(dirname "$0")/.." && pwd)"  # run from a checkout
fi
export RUNFILES_DIR="${RUNFILES_DIR:-$0.runfiles}"
exec /usr/bin/python3 "$here/bench/tasks_benchmark.py" "$@"

#!/usr/bin/env bash
# `bazel run //bench:debugger_benchmark -- ARGS`: runs debugger_benchmark.py with Debian's
# /usr/bin/python3 (not a pyenv python3 that may come first on PATH). The LLDB plugin and
# the GDB files are found in this target's runfiles.
set -euo pipefail
here="${RUNFILES_DIR:-$0.runfiles}/pyunwind"
if [[ ! -f "$here/bench/debugger_benchmark.py" ]]; then
  here="$(cd "$(dirname "$0")/.." && pwd)"  # run from a checkout
fi
export RUNFILES_DIR="${RUNFILES_DIR:-$0.runfiles}"
exec /usr/bin/python3 "$here/bench/debugger_benchmark.py" "$@"

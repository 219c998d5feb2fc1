#!/usr/bin/env bash
# Installs pyunwind's debugger front-ends into one directory:
#
#   bazel run //:install -- DIR
#
# DIR then holds libpyunwind_lldb.so, pyunwind_lldb_frames.py (LLDB 22's frame provider, which
# the plugin imports), libpyunwind_gdb.so, pyunwind-gdb.py and its package pyunwind_gdb/, and
#   LLDB: plugin load DIR/libpyunwind_lldb.so
#   GDB:  source DIR/pyunwind-gdb.py      (it loads libpyunwind_gdb.so from its own directory)
# is all a user needs.
#
# The files come from this sh_binary's runfiles. `bazel run` starts us inside the runfiles
# tree, so a relative DIR is taken relative to where the user typed the command
# ($BUILD_WORKING_DIRECTORY), not to our working directory.
set -euo pipefail

if [[ $# -ne 1 || -z "$1" ]]; then
  echo "usage: bazel run //:install -- DIR" >&2
  exit 2
fi

dest=$1
if [[ "$dest" != /* ]]; then
  dest="${BUILD_WORKING_DIRECTORY:-$PWD}/$dest"
fi

# Where the runfiles are: RUNFILES_DIR (set by bazel run, or by a caller such as the e2e
# tests), TEST_SRCDIR (inside a bazel test), or the runfiles tree beside this script.
files=(lldb_plugin/libpyunwind_lldb.so lldb_plugin/pyunwind_lldb_frames.py gdb_bridge/libpyunwind_gdb.so
       gdb_bridge/pyunwind-gdb.py)
root=""
for candidate in "${RUNFILES_DIR:-}" "${TEST_SRCDIR:-}" "$0.runfiles"; do
  if [[ -n "$candidate" && -f "$candidate/pyunwind/${files[0]}" ]]; then
    root="$candidate/pyunwind"
    break
  fi
done
if [[ -z "$root" && -f "${files[0]}" ]]; then
  root=$PWD  # bazel run's working directory is the runfiles tree of this workspace
fi
if [[ -z "$root" ]]; then
  echo "pyunwind install: cannot find the built files (run it with: bazel run //:install -- DIR)" >&2
  exit 1
fi

mkdir -p "$dest/pyunwind_gdb"
for f in "${files[@]}"; do
  # -L: the runfiles are symlinks into Bazel's output tree; copy the files themselves.
  cp -fL "$root/$f" "$dest/"
done
cp -fL "$root/gdb_bridge/pyunwind_gdb"/*.py "$dest/pyunwind_gdb/"
chmod 0755 "$dest/libpyunwind_lldb.so" "$dest/libpyunwind_gdb.so"
chmod 0644 "$dest/pyunwind-gdb.py" "$dest/pyunwind_lldb_frames.py" "$dest/pyunwind_gdb"/*.py

echo "Installed into $dest:"
echo "  LLDB: plugin load $dest/libpyunwind_lldb.so"
echo "  GDB:  source $dest/pyunwind-gdb.py"

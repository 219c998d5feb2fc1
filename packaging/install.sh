#!/bin/sh
# Installs pyunwind from this release tarball, for systems without dpkg (on Debian and Ubuntu
# prefer the .deb: apt install ./pyunwind_VERSION_amd64.deb).
#
#   ./install.sh [DIR]              copy the files into DIR (default: /usr/local/lib/pyunwind
#                                   as root, else ~/.local/lib/pyunwind)
#   ./install.sh --uninstall [DIR]  remove them again
#
# Then:
#   LLDB: plugin load DIR/libpyunwind_lldb.so   (in the session, or in ~/.lldbinit)
#   GDB:  source DIR/pyunwind-gdb.py            (in the session, or in ~/.gdbinit)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
files="libpyunwind_lldb.so pyunwind_lldb_frames.py libpyunwind_gdb.so pyunwind-gdb.py"
# The GDB script's package: a directory beside it.
package=pyunwind_gdb
uninstall=0
dest=""
for arg in "$@"; do
  case "$arg" in
    --uninstall) uninstall=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
    *) [ -z "$dest" ] || { echo "install.sh: one DIR only" >&2; exit 2; }; dest=$arg ;;
  esac
done
if [ -z "$dest" ]; then
  if [ "$(id -u)" -eq 0 ]; then dest=/usr/local/lib/pyunwind; else dest=$HOME/.local/lib/pyunwind; fi
fi
case "$dest" in /*) ;; *) dest=$PWD/$dest ;; esac

if [ "$uninstall" -eq 1 ]; then
  for f in $files; do rm -f "$dest/$f"; done
  for f in "$here/$package"/*.py; do rm -f "$dest/$package/${f##*/}"; done
  rm -rf "$dest/$package/__pycache__"
  rmdir "$dest/$package" "$dest" 2>/dev/null || true
  echo "Removed pyunwind from $dest"
  exit 0
fi

mkdir -p "$dest/$package"
for f in $files; do
  cp -f "$here/$f" "$dest/$f"
done
cp -f "$here/$package"/*.py "$dest/$package/"
chmod 0755 "$dest/libpyunwind_lldb.so" "$dest/libpyunwind_gdb.so"
chmod 0644 "$dest/pyunwind-gdb.py" "$dest/$package"/*.py
echo "Installed into $dest:"
echo "  LLDB: plugin load $dest/libpyunwind_lldb.so"
echo "  GDB:  source $dest/pyunwind-gdb.py"

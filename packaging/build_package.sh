#!/usr/bin/env bash
# Builds pyunwind's Debian package or its release tarball from the files //:install installs
# (run by the genrules //:deb and //:tarball, see the root BUILD).
#
#   [PYUNWIND_ARCH=arm64] PYUNWIND_SYSROOT=DIR build_package.sh deb OUT VERSION LLDB_SO GDB_SO GDB_PY LLDB_PY GDBINIT_PY README_DEBIAN GDB_PACKAGE_PY...
#   build_package.sh tarball OUT VERSION LLDB_SO GDB_SO GDB_PY LLDB_PY INSTALL_SH GDB_PACKAGE_PY...
#
# GDB_PACKAGE_PY...: the modules of the GDB script's package, installed as pyunwind_gdb/ beside
# the script. PYUNWIND_ARCH: the Debian architecture the libraries are built for (amd64 unless
# set; //:deb_arm64 sets arm64), DIR the sysroot they were linked against.
set -euo pipefail
arch=${PYUNWIND_ARCH:-amd64}

mode=$1 out=$2 version=$3 lldb_so=$4 gdb_so=$5 gdb_py=$6 lldb_py=$7
shift 7
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
out=$(abs "$out")
work=$(mktemp -d "${TMPDIR:-/tmp}/pyunwind-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ "$mode" == tarball ]]; then
  install_sh=$1
  shift
  top="pyunwind-$version"
  mkdir -p "$work/$top/pyunwind_gdb"
  install -m 0755 "$lldb_so" "$gdb_so" "$work/$top/"
  install -m 0644 "$gdb_py" "$lldb_py" "$work/$top/"
  install -m 0644 "$@" "$work/$top/pyunwind_gdb/"
  install -m 0755 "$install_sh" "$work/$top/install.sh"
  tar -C "$work" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -czf "$out" "$top"
  exit 0
fi

gdbinit_py=$1 readme=$2
shift 2
# Staged as debian/pyunwind/ so that dpkg-shlibdeps (run from $work) finds the package's files
# where it expects them.
root="$work/debian/pyunwind"
install -d "$root/DEBIAN" "$root/usr/lib/pyunwind/pyunwind_gdb" "$root/etc/gdb/gdbinit.d" \
  "$root/usr/share/doc/pyunwind"
install -m 0644 "$lldb_so" "$gdb_so" "$root/usr/lib/pyunwind/"
install -m 0644 "$gdb_py" "$lldb_py" "$root/usr/lib/pyunwind/"
install -m 0644 "$@" "$root/usr/lib/pyunwind/pyunwind_gdb/"
install -m 0644 "$gdbinit_py" "$root/etc/gdb/gdbinit.d/pyunwind.gdb"
install -m 0644 "$readme" "$root/usr/share/doc/pyunwind/README.Debian"

# Depends: what the libraries link (dpkg-shlibdeps), except LLDB: the plugin is loaded into
# an LLDB that brings its own liblldb, and a user of GDB only needs no LLDB at all.
# The versions come from Debian 11's libc6 symbols file, which .ci/fetch-sysroot keeps in the
# sysroot the libraries were linked against ($PYUNWIND_SYSROOT, from toolchain/sysroot.bzl):
# -S makes dpkg-shlibdeps take libc6's libraries and symbols from there, not this machine's.
[[ -e ${PYUNWIND_SYSROOT:-}/DEBIAN/symbols ]] || {
  echo "build_package.sh: no libc6 symbols file in the sysroot ${PYUNWIND_SYSROOT:-}: run .ci/fetch-sysroot" >&2
  exit 1
}
printf 'Source: pyunwind\n\nPackage: pyunwind\nArchitecture: %s\n' "$arch" > "$work/debian/control"
# DEB_HOST_ARCH: dpkg-shlibdeps searches the libraries of that architecture's multiarch
# directories (of the sysroot, -S); by default this machine's (amd64).
depends=$(cd "$work" && DEB_HOST_ARCH=$arch dpkg-shlibdeps --ignore-missing-info -O -S"$PYUNWIND_SYSROOT" \
  debian/pyunwind/usr/lib/pyunwind/libpyunwind_gdb.so \
  debian/pyunwind/usr/lib/pyunwind/libpyunwind_lldb.so 2>"$work/shlibdeps.err") || {
  cat "$work/shlibdeps.err" >&2
  exit 1
}
depends=${depends#shlibs:Depends=}
depends=$(tr ',' '\n' <<<"$depends" | sed 's/^ *//' | grep -v '^liblldb' | paste -sd, - |
  sed 's/,/, /g')
[[ -n "$depends" ]] || { echo "build_package.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: pyunwind
Version: $version
Architecture: $arch
Maintainer: pyunwind maintainers <maintainers@users.noreply.a-seed-df12759e.example>
Installed-Size: $installed_size
Depends: $depends
Suggests: gdb, lldb
Section: devel
Priority: optional
Description: Python stacks of CPython processes and core files in LLDB and GDB
 pyunwind shows every thread's Python stack, the asyncio tasks and who awaits
 whom, locals and source of a live CPython process (3.11 to 3.15, default and
 free-threaded builds) or of its core file, with or without the executable.
 .
 GDB loads it in every session (/etc/gdb/gdbinit.d/pyunwind.gdb). In LLDB:
 plugin load /usr/lib/pyunwind/libpyunwind_lldb.so
CONTROL
echo /etc/gdb/gdbinit.d/pyunwind.gdb > "$root/DEBIAN/conffiles"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +

SOURCE_DATE_EPOCH=0 dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null

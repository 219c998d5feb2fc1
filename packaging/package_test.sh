#!/usr/bin/env bash
# Installs what //:deb or //:tarball built on this machine, uses it in GDB and LLDB on a live
# python3.11, and removes it again (packaging/README.md):
#
#   package_test.sh deb PATH.deb        (sh_test //packaging:deb_test; root, not sandboxed)
#   package_test.sh tarball PATH.tar.gz (sh_test //packaging:tarball_test)
#   package_test.sh compare PATH REFERENCE ARCH
#                                       (//packaging:deb_arm64_test, tarball_arm64_test)
#
# compare: PATH (a .deb or .tar.gz built for ARCH, which this machine cannot install or run)
# holds what REFERENCE (the same package for amd64, which the deb and tarball modes check)
# holds: the same control fields but Architecture (ARCH) and Installed-Size, the same files with
# the same modes, and its libraries are ELF files of ARCH.
#
# Each check is one test case in $XML_OUTPUT_FILE (Bazel's test.xml, which .ci/run counts);
# a check that cannot run here is written as skipped with the reason.
set -uo pipefail

mode=$1
artifact=$(realpath "$2")
reference=${3:+$(realpath "$3")}
arch=${4:-amd64}
python=/usr/bin/python3.11
export PATH=/usr/sbin:/usr/bin:/sbin:/bin   # no pyenv python3 before the debuggers' Python
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/pyunwind-package-test.XXXXXX")
export HOME="$tmp/home"     # an empty home: no ~/.gdbinit or ~/.lldbinit of this machine
mkdir -p "$HOME"
sleeper_pid=""
was_installed=0

source "$(dirname "${BASH_SOURCE[0]}")/junit.sh" || exit 1

cleanup() {
  if [[ -n "$sleeper_pid" ]]; then
    kill -KILL "$sleeper_pid" 2>/dev/null
    wait "$sleeper_pid" 2>/dev/null
  fi
  # The machine had pyunwind installed before: leave it installed (the package just built).
  if [[ "$mode" == deb && "$was_installed" == 1 ]] && ! installed; then
    echo "reinstalling pyunwind (it was installed before the test): $artifact"
    apt_install "$artifact" >/dev/null 2>&1 || echo "reinstalling failed" >&2
  fi
  rm -rf "$tmp"
}

finish() {
  write_junit "package_$mode"
  cleanup
  if any_failed; then exit 1; fi
  exit 0
}

skip_all() {
  local name
  for name in "$@"; do record "$name" skip "$reason"; done
  finish
}

installed() {
  [[ "$(dpkg-query -W -f='${Status}' pyunwind 2>/dev/null)" == "install ok installed" ]]
}

apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "$1"
}

start_sleeper() {
  cat > "$tmp/sleeper.py" <<'PY'
import sys
import time


def pyunwind_package_test_sleeper(ready):
    with open(ready, "w") as f:
        f.write("ready")
    while True:
        time.sleep(3600)


pyunwind_package_test_sleeper(sys.argv[1])
PY
  "$python" "$tmp/sleeper.py" "$tmp/ready" &
  sleeper_pid=$!
  local _
  for _ in $(seq 300); do
    [[ -s "$tmp/ready" ]] && return 0
    sleep 0.1
  done
  return 1
}

# gdb_session OUT [ARGS...]: GDB in batch mode on the sleeper, reading the system init files
# (no -nx), with the empty HOME; stdout and stderr into OUT.
gdb_session() {
  local out=$1
  shift
  timeout 120 gdb -batch "$@" -p "$sleeper_pid" </dev/null >"$out" 2>&1
}

lldb_session() {
  local out=$1 plugin=$2
  timeout 120 lldb --batch --no-lldbinit -o "plugin load $plugin" -o "py-bt --all" \
    -p "$sleeper_pid" </dev/null >"$out" 2>&1
}

# What pyunwind's py-bt --all prints for the sleeper and CPython's own py-bt does not: its
# header (idle: its frame is inside time.sleep).
has_pyunwind_stack() {
  grep -q "^Thread $sleeper_pid .*(idle, main thread):" "$1" &&
    grep -q "in pyunwind_package_test_sleeper$" "$1"
}

check_stack() {  # NAME OUT
  if has_pyunwind_stack "$2"; then record "$1" pass; else
    record "$1" fail "no pyunwind stack of the sleeper in: $(head -c 2000 "$2")"; fi
}

trap finish EXIT

deb_cases=(control_fields contents install gdb_every_session gdb_attach_plain_py_bt
           gdb_p_plain_py_bt lldb_plugin_line version_command listed_files
           remove_keeps_only_conffile remove_keeps_gdb_quiet purge_removes_everything)
tarball_cases=(contents install_sh gdb_source gdb_writes_no_bytecode lldb_plugin_line uninstall
               default_dir_user default_dir_root)

# The GDB script's package, installed as pyunwind_gdb/ beside the script.
gdb_package=(__init__.py abi.py callbacks.py commands.py frame_filter.py interrupt.py output.py
             process.py registration.py session.py swallowed.py)
# sorted_words PATH...: the paths sorted as the listings below are, on one line.
sorted_words() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
if [[ "$mode" == deb ]]; then all=("${deb_cases[@]}"); else all=("${tarball_cases[@]}"); fi

# --- compare: a package of another architecture against the amd64 one ---
if [[ "$mode" == compare ]]; then
  # listing PATH: each file's mode, owner and path (a .deb or a .tar.gz), sorted.
  listing() {
    case "$1" in
      *.deb) dpkg-deb -c "$1" ;;
      *) tar -tvzf "$1" ;;
    esac | awk '{print $1, $2, $NF}' | sort
  }
  if [[ "$(listing "$artifact")" == "$(listing "$reference")" ]]; then
    record contents_as_reference pass
  else
    record contents_as_reference fail "$(diff <(listing "$reference") <(listing "$artifact") | head -c 2000)"
  fi
  mkdir -p "$tmp/x"
  case "$artifact" in
    *.deb)
      fields() { dpkg-deb -f "$1" | grep -vE '^(Architecture|Installed-Size):'; }
      if [[ "$(fields "$artifact")" == "$(fields "$reference")" ]]; then
        record control_fields_as_reference pass
      else
        record control_fields_as_reference fail "$(diff <(fields "$reference") <(fields "$artifact") | head -c 2000)"
      fi
      got=$(dpkg-deb -f "$artifact" Architecture)
      if [[ "$got" == "$arch" ]]; then record architecture pass; else
        record architecture fail "Architecture: $got, want $arch"; fi
      dpkg-deb -x "$artifact" "$tmp/x" ;;
    *) tar -xzf "$artifact" -C "$tmp/x" ;;
  esac
  case "$arch" in arm64) machine=AArch64 ;; *) machine="Advanced Micro Devices X86-64" ;; esac
  wrong=""
  mapfile -t libraries < <(find "$tmp/x" -name '*.so' | sort)
  for so in "${libraries[@]}"; do
    got=$(readelf -h "$so" 2>&1 | sed -n 's/^ *Machine: *//p')
    [[ "$got" == "$machine" ]] || wrong+="$(basename "$so"): '$got'; "
  done
  if [[ ${#libraries[@]} -eq 2 && -z "$wrong" ]]; then record libraries_machine pass "${#libraries[@]} x $machine"
  else record libraries_machine fail "want 2 libraries of $machine: ${wrong:-${#libraries[@]} found}"; fi
  finish
fi

reason=""
if [[ -n "${PYUNWIND_ASAN_PRELOAD:-}" ]]; then
  reason="--config=asan: the package holds the instrumented libraries, which GDB and LLDB cannot load without libasan preloaded"
elif [[ "$mode" == deb && $(id -u) -ne 0 ]]; then
  reason="not root: installing a package needs root"
elif [[ "$mode" == deb ]] && ! command -v apt-get >/dev/null; then
  reason="no apt-get on this machine"
elif [[ ! -x "$python" ]]; then
  reason="no $python"
elif ! command -v gdb >/dev/null || ! command -v lldb >/dev/null; then
  reason="gdb and lldb are needed (.ci/packages.txt)"
fi
[[ -z "$reason" ]] || skip_all "${all[@]}"

start_sleeper || { reason="the python3.11 sleeper did not start"; record setup fail "$reason"; finish; }

if [[ "$mode" == tarball ]]; then
  top=$(tar -tzf "$artifact" | head -n 1 | cut -d/ -f1)
  listing=$(tar -tzf "$artifact" | grep -v '/$' | sort | tr '\n' ' ')
  want=$(sorted_words "$top/install.sh" "$top/libpyunwind_gdb.so" "$top/libpyunwind_lldb.so" \
    "$top/pyunwind-gdb.py" "$top/pyunwind_lldb_frames.py" "${gdb_package[@]/#/$top/pyunwind_gdb/}")
  if [[ "$listing" == "$want" ]]; then record contents pass; else
    record contents fail "got: $listing; want: $want"; fi
  tar -xzf "$artifact" -C "$tmp"
  dest="$tmp/installed/pyunwind"
  if "$tmp/$top/install.sh" "$dest" >"$tmp/install.out" 2>&1 &&
      [[ -f "$dest/libpyunwind_lldb.so" && -f "$dest/libpyunwind_gdb.so" && -f "$dest/pyunwind-gdb.py" &&
         -f "$dest/pyunwind_lldb_frames.py" && -f "$dest/pyunwind_gdb/__init__.py" ]] &&
      grep -qF "plugin load $dest/libpyunwind_lldb.so" "$tmp/install.out"; then
    record install_sh pass
  else
    record install_sh fail "$(cat "$tmp/install.out")"
  fi
  gdb_session "$tmp/gdb.out" -nx -ex "source $dest/pyunwind-gdb.py" -ex "py-bt --all"
  check_stack gdb_source "$tmp/gdb.out"
  # Nothing written beside the installed files: a package manager would leave it behind.
  if [[ -z "$(find "$dest" -name __pycache__)" ]]; then record gdb_writes_no_bytecode pass; else
    record gdb_writes_no_bytecode fail "$(find "$dest" -name __pycache__)"; fi
  lldb_session "$tmp/lldb.out" "$dest/libpyunwind_lldb.so"
  if grep -q "in pyunwind_package_test_sleeper$" "$tmp/lldb.out"; then record lldb_plugin_line pass
  else record lldb_plugin_line fail "$(head -c 2000 "$tmp/lldb.out")"; fi
  if "$tmp/$top/install.sh" --uninstall "$dest" >/dev/null 2>&1 && [[ ! -e "$dest" ]]; then
    record uninstall pass
  else
    record uninstall fail "$dest still exists: $(ls -A "$dest" 2>&1 | tr '\n' ' ')"
  fi
  # The default DIR: ~/.local/lib/pyunwind for a user (an `id` on PATH that says uid 1000),
  # /usr/local/lib/pyunwind for root (only when nothing is there yet: never touch a real install).
  mkdir -p "$tmp/fakebin" "$tmp/home"
  printf '#!/bin/sh\necho 1000\n' >"$tmp/fakebin/id" && chmod +x "$tmp/fakebin/id"
  user_dest="$tmp/home/.local/lib/pyunwind"
  if HOME="$tmp/home" PATH="$tmp/fakebin:$PATH" "$tmp/$top/install.sh" >/dev/null 2>&1 &&
      [[ -f "$user_dest/libpyunwind_lldb.so" ]] &&
      HOME="$tmp/home" PATH="$tmp/fakebin:$PATH" "$tmp/$top/install.sh" --uninstall >/dev/null 2>&1 &&
      [[ ! -e "$user_dest" ]]; then
    record default_dir_user pass
  else
    record default_dir_user fail "install.sh without DIR as uid 1000 did not install into (or remove) $user_dest"
  fi
  if [[ "$(id -u)" -ne 0 ]]; then
    record default_dir_root skip "not root"
  elif [[ -e /usr/local/lib/pyunwind ]]; then
    record default_dir_root skip "/usr/local/lib/pyunwind exists already (a real install is not touched)"
  elif "$tmp/$top/install.sh" >/dev/null 2>&1 && [[ -f /usr/local/lib/pyunwind/libpyunwind_gdb.so ]] &&
      "$tmp/$top/install.sh" --uninstall >/dev/null 2>&1 && [[ ! -e /usr/local/lib/pyunwind ]]; then
    record default_dir_root pass
  else
    record default_dir_root fail "install.sh without DIR as root: $(ls -A /usr/local/lib/pyunwind 2>&1 | tr '\n' ' ')"
    rm -rf /usr/local/lib/pyunwind
  fi
  finish
fi

# --- deb ---
# One deb_test at a time on this machine (several checkouts may run `bazel test //...`): the
# package is installed system-wide.
exec 9>/run/lock/pyunwind-deb-test.lock
if ! flock -w 600 9; then
  reason="another deb_test held /run/lock/pyunwind-deb-test.lock for 600 s"
  record lock fail "$reason"
  finish
fi
if installed; then was_installed=1; fi

# Depends: every library the two .so files need (except LLDB's own) comes from a package it
# names; neither debugger is a dependency.
depends=$(dpkg-deb -f "$artifact" Depends)
dpkg-deb -x "$artifact" "$tmp/x"
problems=""
grep -qiE '(^|[ ,])(gdb|lldb|liblldb)' <<<"$depends" && problems+="Depends names a debugger: $depends; "
for so in "$tmp/x/usr/lib/pyunwind/"*.so; do
  for lib in $(objdump -p "$so" | awk '$1 == "NEEDED" {print $2}'); do
    [[ "$lib" == liblldb* ]] && continue
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')
    [[ -n "$path" ]] || { problems+="$(basename "$so") needs $lib, not found by ldconfig; "; continue; }
    pkg=$( { dpkg -S "$path" || dpkg -S "/usr$path" || dpkg -S "${path#/usr}"; } 2>/dev/null |
      head -n 1 | cut -d: -f1)
    if [[ -z "$pkg" ]]; then problems+="$(basename "$so") needs $lib, from no package; "
    elif ! tr ',' '\n' <<<"$depends" | awk '{print $1}' | grep -qxF "$pkg"; then
      problems+="$(basename "$so") needs $lib from $pkg, not in Depends ($depends); "
    fi
  done
done
# ... and nothing more: exactly the packages the README names.
depends_names=$(tr ',' '\n' <<<"$depends" | awk '{print $1}' | sort | tr '\n' ' ')
# libstdc++ and libgcc are linked in (toolchain/README.md): the C library alone.
[[ "$depends_names" == "libc6 " ]] ||
  problems+="Depends is not exactly libc6: $depends; "
# ... no newer than the glibc the libraries are built against (toolchain/README.md).
libc6_min=$(sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p' <<<"$depends")
if [[ -z "$libc6_min" ]] || dpkg --compare-versions "$libc6_min" gt 2.31; then
  problems+="Depends asks for a libc6 newer than 2.31: $depends; "
fi
if [[ -z "$problems" ]]; then record control_fields pass; else record control_fields fail "$problems"; fi

listing=$(dpkg-deb -c "$artifact" | awk '$1 !~ /^d/ {print $NF}' | sort | tr '\n' ' ')
want=$(sorted_words ./etc/gdb/gdbinit.d/pyunwind.gdb ./usr/lib/pyunwind/libpyunwind_gdb.so \
  ./usr/lib/pyunwind/libpyunwind_lldb.so ./usr/lib/pyunwind/pyunwind-gdb.py \
  ./usr/lib/pyunwind/pyunwind_lldb_frames.py ./usr/share/doc/pyunwind/README.Debian \
  "${gdb_package[@]/#/./usr/lib/pyunwind/pyunwind_gdb/}")
if [[ "$listing" == "$want" ]]; then record contents pass; else
  record contents fail "got: $listing; want: $want"; fi

if apt_install "$artifact" >"$tmp/apt.out" 2>&1 && installed; then record install pass; else
  record install fail "$(tail -c 2000 "$tmp/apt.out")"
  finish
fi

# Every GDB session has pyunwind: no -nx, no source, no user init file. `pyunwind py-bt` is a
# name only pyunwind defines; `attach` from inside GDB, then plain `py-bt`.
gdb_session "$tmp/gdb.out" -ex "pyunwind py-bt --all"
check_stack gdb_every_session "$tmp/gdb.out"
timeout 120 gdb -batch -ex "attach $sleeper_pid" -ex "py-bt --all" </dev/null >"$tmp/gdb-attach.out" 2>&1
check_stack gdb_attach_plain_py_bt "$tmp/gdb-attach.out"
# `gdb -p PID -ex 'py-bt --all'`: GDB runs the auto-load scripts of the objfiles of its command
# line (-p, EXE) after the init files; CPython's own python3.11-gdb.py (python3.11-dbg) then
# defines py-bt again, and pyunwind (loaded by the gdbinit.d file) must keep the plain name.
gdb_session "$tmp/gdb-p.out" -ex "py-bt --all"
if has_pyunwind_stack "$tmp/gdb-p.out"; then record gdb_p_plain_py_bt pass
else
  record gdb_p_plain_py_bt fail "no pyunwind stack of the sleeper in: $(head -c 2000 "$tmp/gdb-p.out")"
fi

# The one LLDB line the package documents.
lldb_session "$tmp/lldb.out" /usr/lib/pyunwind/libpyunwind_lldb.so
if grep -q "in pyunwind_package_test_sleeper$" "$tmp/lldb.out"; then record lldb_plugin_line pass
else record lldb_plugin_line fail "$(head -c 2000 "$tmp/lldb.out")"; fi

# `pyunwind version` of the installed files names the package's version and the debugger.
deb_version=$(dpkg-deb -f "$artifact" Version)
timeout 120 gdb -batch -ex "pyunwind version" </dev/null >"$tmp/gdb-version.out" 2>&1
timeout 120 lldb --batch --no-lldbinit -o "plugin load /usr/lib/pyunwind/libpyunwind_lldb.so" \
  -o "pyunwind version" </dev/null >"$tmp/lldb-version.out" 2>&1
if grep -q "^pyunwind $deb_version (git revision " "$tmp/gdb-version.out" &&
    grep -q "^running in GDB " "$tmp/gdb-version.out" &&
    grep -q "^pyunwind $deb_version (git revision " "$tmp/lldb-version.out" &&
    grep -q "^running in lldb version " "$tmp/lldb-version.out"; then
  record version_command pass
else
  record version_command fail "$(head -c 1000 "$tmp/gdb-version.out") / $(head -c 1000 "$tmp/lldb-version.out")"
fi

mapfile -t files < <(dpkg -L pyunwind | while read -r f; do [[ -f "$f" ]] && echo "$f"; done)
missing=""
for f in /usr/lib/pyunwind/libpyunwind_lldb.so /usr/lib/pyunwind/libpyunwind_gdb.so \
         /usr/lib/pyunwind/pyunwind-gdb.py /usr/lib/pyunwind/pyunwind_lldb_frames.py \
         "${gdb_package[@]/#//usr/lib/pyunwind/pyunwind_gdb/}" /etc/gdb/gdbinit.d/pyunwind.gdb; do
  [[ " ${files[*]} " == *" $f "* ]] || missing+="$f "
done
if [[ -z "$missing" ]]; then record listed_files pass; else
  record listed_files fail "dpkg -L does not list: $missing"; fi

# Removed (not purged): only the conffile stays, GDB starts without pyunwind and without an error.
if dpkg -r pyunwind >"$tmp/remove.out" 2>&1 && [[ ! -e /usr/lib/pyunwind ]]; then
  kept=""
  for f in "${files[@]}"; do [[ -e "$f" ]] && kept+="$f "; done
  if [[ "$kept" == "/etc/gdb/gdbinit.d/pyunwind.gdb " ]]; then record remove_keeps_only_conffile pass
  else record remove_keeps_only_conffile fail "after dpkg -r: '$kept' (want only the conffile)"; fi
  gdb_session "$tmp/gdb-removed.out" -ex "pyunwind py-bt --all"
  if grep -q 'Undefined command: "pyunwind"' "$tmp/gdb-removed.out" &&
      ! grep -qi "pyunwind-gdb.py\|Traceback\|Python Exception" "$tmp/gdb-removed.out"; then
    record remove_keeps_gdb_quiet pass
  else
    record remove_keeps_gdb_quiet fail "$(head -c 2000 "$tmp/gdb-removed.out")"
  fi
else
  record remove_keeps_only_conffile fail "dpkg -r: $(cat "$tmp/remove.out"); $(ls /usr/lib/pyunwind 2>&1)"
  record remove_keeps_gdb_quiet fail "dpkg -r: $(cat "$tmp/remove.out"); $(ls /usr/lib/pyunwind 2>&1)"
fi

dpkg --purge pyunwind >"$tmp/purge.out" 2>&1
left=""
for f in "${files[@]}" /usr/lib/pyunwind /usr/share/doc/pyunwind; do
  [[ -e "$f" ]] && left+="$f "
done
if [[ -z "$left" ]] && [[ -z "$(dpkg-query -W -f='${Status}' pyunwind 2>/dev/null | grep -v not-installed)" ]]; then
  record purge_removes_everything pass
else
  record purge_removes_everything fail "left after dpkg --purge: $left $(cat "$tmp/purge.out")"
fi
finish

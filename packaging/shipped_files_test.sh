#!/usr/bin/env bash
# The shipped libraries load on glibc 2.31 and newer (toolchain/README.md):
#
#   shipped_files_test.sh amd64|arm64 SO[:REFERENCE_SO]...
#
# for each SO, built for that architecture, from `readelf -h`, `objdump -T` and `objdump -p`,
#   machine: an ELF file of the architecture (x86-64 or AArch64);
#   glibc:   no GLIBC_ version newer than 2.31 is required;
#   cxx:     no GLIBCXX_ or CXXABI_ version at all (libstdc++ is linked in, statically);
#   needed:  DT_NEEDED only libc, libm, libdl, libpthread and the loader (under --config=asan
#            also libasan and libubsan, which the instrumented build needs);
#   exports: only the entry points of the library's version script (defined global dynamic
#            symbols), none of the C++ runtime linked in;
#   needed_as_reference (with :REFERENCE_SO, the same library of another architecture):
#            the same DT_NEEDED libraries, the loader aside, and the same exports.
# One test case per check and library in $XML_OUTPUT_FILE (Bazel's test.xml, which .ci/run counts).
set -uo pipefail

baseline=2.31
source "$(dirname "${BASH_SOURCE[0]}")/junit.sh" || exit 1

arch=$1
shift
case $arch in
  amd64) machine="Advanced Micro Devices X86-64" loader=ld-linux-x86-64.so.2 ;;
  arm64) machine=AArch64 loader=ld-linux-aarch64.so.1 ;;
  *) record arguments fail "unknown architecture $arch (amd64 or arm64)"; write_junit shipped_files; exit 1 ;;
esac
allowed_needed="libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 $loader"
[[ -n ${PYUNWIND_ASAN_PRELOAD:-} ]] && allowed_needed+=" libasan.so.8 libubsan.so.1"

# needed_and_exports SO: its DT_NEEDED libraries but the loader, then its exports, one line.
needed_and_exports() {
  { objdump -p "$1" | awk '$1 == "NEEDED" && $2 !~ /^ld-linux/ {print $2}' | sort
    nm -D --defined-only "$1" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sort; } | tr '\n' ' '
}

for arg in "$@"; do
  so=${arg%%:*} reference=
  [[ $arg == *:* ]] && reference=${arg#*:}
  name=$(basename "$so" .so)
  got_machine=$(readelf -h "$so" 2>&1 | sed -n 's/^ *Machine: *//p')
  if [[ $got_machine == "$machine" ]]; then record "${name}_machine" pass "$got_machine"; else
    record "${name}_machine" fail "machine '$got_machine', want '$machine' ($arch)"; fi
  dynsym=$(objdump -T "$so") || { record "${name}_readable" fail "objdump -T $so failed"; continue; }
  newer=$(grep -oE '\(GLIBC_[0-9.]+\)' <<<"$dynsym" | tr -d '()' | sed 's/^GLIBC_//' | sort -uV |
          awk -v base="$baseline" '{ split($0, v, "."); split(base, b, ".");
                                     if (v[1] > b[1] || (v[1] == b[1] && v[2] + 0 > b[2] + 0)) print "GLIBC_" $0 }')
  highest=$(grep -oE '\(GLIBC_[0-9.]+\)' <<<"$dynsym" | tr -d '()' | sort -uV | tail -n1)
  if [[ -n $newer ]]; then
    record "${name}_glibc" fail "needs $(echo $newer), newer than GLIBC_$baseline: $(grep -E "$(echo $newer | tr ' ' '|')" <<<"$dynsym" | awk '{print $NF}' | head -n5 | tr '\n' ' ')"
  else
    record "${name}_glibc" pass "highest $highest"
  fi
  cxx=$(grep -oE '\((GLIBCXX|CXXABI)_[0-9.]+\)' <<<"$dynsym" | tr -d '()' | sort -uV)
  if [[ -n $cxx ]]; then
    record "${name}_cxx" fail "needs libstdc++.so.6's $(echo $cxx)"
  else
    record "${name}_cxx" pass "no GLIBCXX_/CXXABI_"
  fi
  needed=$(objdump -p "$so" | awk '$1 == "NEEDED" {print $2}')
  extra=""
  for lib in $needed; do
    [[ " $allowed_needed " == *" $lib "* ]] || extra+=" $lib"
  done
  if [[ -n $extra ]]; then
    record "${name}_needed" fail "needs$extra (allowed: $allowed_needed)"
  else
    record "${name}_needed" pass "$(echo $needed)"
  fi
  exports=$(nm -D --defined-only "$so" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sort)
  runtime=$(grep -E '^(_ZN?St|_ZNS|_ZTI|_ZTS|_ZTV|__cxa_|__gxx_|_Unwind_|__libc_single_threaded|_dl_find_object|arc4random)' <<<"$exports")
  if [[ -n $runtime ]]; then
    record "${name}_exports" fail "exports the C++ runtime: $(head -n5 <<<"$runtime" | tr '\n' ' ')"
  elif [[ -z $exports ]]; then
    record "${name}_exports" fail "exports nothing"
  else
    record "${name}_exports" pass "$(echo $exports)"
  fi
  if [[ -n $reference ]]; then
    got=$(needed_and_exports "$so") want=$(needed_and_exports "$reference")
    if [[ $got == "$want" ]]; then record "${name}_needed_as_reference" pass "$got"; else
      record "${name}_needed_as_reference" fail "needs and exports: $got; $reference: $want"; fi
  fi
done

write_junit shipped_files
if any_failed; then exit 1; fi
exit 0

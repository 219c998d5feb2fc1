#!/usr/bin/env bash
# The shipped libraries load on glibc 2.31 and newer (toolchain/README.md): for each .so given,
# from `objdump -T` and `objdump -p`,
#   glibc:   no GLIBC_ version newer than 2.31 is required;
#   cxx:     no GLIBCXX_ or CXXABI_ version at all (libstdc++ is linked in, statically);
#   needed:  DT_NEEDED only libc, libm, libdl, libpthread and the loader (under --config=asan
#            also libasan and libubsan, which the instrumented build needs);
#   exports: only the entry points of the library's version script (defined global dynamic
#            symbols), none of the C++ runtime linked in.
# One test case per check and library in $XML_OUTPUT_FILE (Bazel's test.xml, which .ci/run counts).
set -uo pipefail

baseline=2.31
cases=()
fail=0
record() {  # NAME STATUS [MESSAGE]
  local msg=${3:-}
  msg=${msg//$'\n'/ }
  cases+=("$1|$2|${msg//|/ }")
  printf '%-4s %s%s\n' "$2" "$1" "${3:+: $3}"
  [[ $2 == fail ]] && fail=1
}

allowed_needed="libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 ld-linux-x86-64.so.2"
[[ -n ${PYUNWIND_ASAN_PRELOAD:-} ]] && allowed_needed+=" libasan.so.8 libubsan.so.1"

for so in "$@"; do
  name=$(basename "$so" .so)
  dynsym=$(objdump -T "$so") || { record "${name}_readable" fail "objdump -T $so failed"; continue; }
  newer=$(grep -oE '\(GLIBC_[0-9.]+\)' <<<"$dynsym" | tr -d '()' | sed 's/^GLIBC_//' | sort -uV |
          awk -v base="$baseline" '{ split($0, v, "."); split(base, b, ".");
                                     if (v[1] > b[1] || (v[1] == b[1] && v[2] + 0 > b[2] + 0)) print "GLIBC_" $0 }')
  highest=$(grep -oE '\(GLIBC_[0-9.]+\)' <<<"$dynsym" | tr -d '()' | sort -uV | tail -n1)
  if [[ -n $newer ]]; then
    record "${name}_glibc" fail "needs $(echo $newer), newer than GLIBC_$baseline: $(grep -E "$(echo $newer | tr ' ' '|')" <<<"$dynsym" | awk '{print $NF}' | head -n5 | tr '\n' ' ')"
  else
    record "${name}_glibc" ok "highest $highest"
  fi
  cxx=$(grep -oE '\((GLIBCXX|CXXABI)_[0-9.]+\)' <<<"$dynsym" | tr -d '()' | sort -uV)
  if [[ -n $cxx ]]; then
    record "${name}_cxx" fail "needs libstdc++.so.6's $(echo $cxx)"
  else
    record "${name}_cxx" ok "no GLIBCXX_/CXXABI_"
  fi
  needed=$(objdump -p "$so" | awk '$1 == "NEEDED" {print $2}')
  extra=""
  for lib in $needed; do
    [[ " $allowed_needed " == *" $lib "* ]] || extra+=" $lib"
  done
  if [[ -n $extra ]]; then
    record "${name}_needed" fail "needs$extra (allowed: $allowed_needed)"
  else
    record "${name}_needed" ok "$(echo $needed)"
  fi
  exports=$(nm -D --defined-only "$so" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sort)
  runtime=$(grep -E '^(_ZN?St|_ZNS|_ZTI|_ZTS|_ZTV|__cxa_|__gxx_|_Unwind_|__libc_single_threaded|_dl_find_object|arc4random)' <<<"$exports")
  if [[ -n $runtime ]]; then
    record "${name}_exports" fail "exports the C++ runtime: $(head -n5 <<<"$runtime" | tr '\n' ' ')"
  elif [[ -z $exports ]]; then
    record "${name}_exports" fail "exports nothing"
  else
    record "${name}_exports" ok "$(echo $exports)"
  fi
done

if [[ -n ${XML_OUTPUT_FILE:-} ]]; then
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites><testsuite name=\"shipped_files\" tests=\"${#cases[@]}\">"
    for c in "${cases[@]}"; do
      IFS='|' read -r name status msg <<<"$c"
      msg=$(sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' <<<"$msg")
      echo "<testcase classname=\"shipped_files\" name=\"$name\">"
      [[ $status == fail ]] && echo "<failure message=\"$msg\"></failure>"
      echo "</testcase>"
    done
    echo "</testsuite></testsuites>"
  } >"$XML_OUTPUT_FILE"
fi
exit $fail

# Sourced by the packaging tests (shipped_files_test.sh, package_test.sh): one test case per
# check, written to $XML_OUTPUT_FILE (Bazel's test.xml, which .ci/run counts).
#
#   record NAME STATUS [MESSAGE]   STATUS: pass, fail or skip (with the reason); prints a line
#   write_junit SUITE              writes every case recorded so far (nothing without
#                                  $XML_OUTPUT_FILE)
#   any_failed                     whether a case failed

cases=()   # "name|status|message"
record() {
  local msg=${3:-}
  msg=${msg//$'\n'/ }
  msg=${msg//|/ }
  cases+=("$1|$2|$msg")
  printf '%-6s %s%s\n' "$2" "$1" "${3:+: $3}"
}

any_failed() {
  local c
  for c in "${cases[@]}"; do [[ "${c#*|}" == fail* ]] && return 0; done
  return 1
}

write_junit() {
  local suite=$1 out=${XML_OUTPUT_FILE:-}
  [[ -n "$out" ]] || return 0
  local failures=0 skipped=0 c name status msg
  for c in "${cases[@]}"; do
    [[ "${c#*|}" == fail* ]] && failures=$((failures + 1))
    [[ "${c#*|}" == skip* ]] && skipped=$((skipped + 1))
  done
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites><testsuite name=\"$suite\" tests=\"${#cases[@]}\" failures=\"$failures\" skipped=\"$skipped\">"
    for c in "${cases[@]}"; do
      IFS='|' read -r name status msg <<<"$c"
      msg=$(sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' <<<"$msg")
      echo "<testcase classname=\"$suite\" name=\"$name\">"
      case "$status" in
        fail) echo "<failure message=\"$msg\"></failure>" ;;
        skip) echo "<skipped message=\"$msg\"></skipped>" ;;
      esac
      echo "</testcase>"
    done
    echo "</testsuite></testsuites>"
  } > "$out"
}

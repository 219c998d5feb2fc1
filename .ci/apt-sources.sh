# Sourced by .ci/fetch-pythons and .ci/fetch-lldbs: what the machine's apt sources say, so that
# no script names a package host of its own.
#
#   debian_mirror     prints the URI of the Debian archive that the machine's apt sources use
#                     (the first enabled `deb` source with a suite that is not `*-security`),
#                     e.g. the URI of /etc/apt/sources.list.d/debian.sources; prints nothing
#                     and returns 1 when none has one.
#
# It reads what apt reads: /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line
# format: `deb [options] URI SUITE COMPONENT...`) and /etc/apt/sources.list.d/*.sources (deb822
# stanzas: Types, URIs, Suites, Enabled), and nothing else (files apt ignores, such as
# `*.disabled`, are ignored). $PYUNWIND_APT_SOURCES (a list of such files, separated by spaces)
# replaces them, for a check by hand.

# "URI SUITE" of every enabled `deb` source, one a line, in apt's order.
apt_deb_sources() {
  local files f
  if [[ -n ${PYUNWIND_APT_SOURCES:-} ]]; then
    read -r -a files <<<"$PYUNWIND_APT_SOURCES"
  else
    files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
  fi
  for f in "${files[@]}"; do
    [[ -r $f ]] || continue
    if [[ $f == *.sources ]]; then
      # deb822: stanzas separated by blank lines; field names are case-insensitive; a field may
      # continue on lines that start with a space; `#` lines are comments.
      awk '
        function flush(   i, j, nu, ns, u, s, deb) {
          deb = 0
          if (tolower(f["enabled"]) != "no") {
            n = split(f["types"], t, " ")
            for (i = 1; i <= n; i++) if (t[i] == "deb") deb = 1
          }
          if (deb) {
            nu = split(f["uris"], u, " "); ns = split(f["suites"], s, " ")
            for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j]
          }
          delete f; key = ""
        }
        function trim(v) { gsub(/^[ \t]+|[ \t]+$/, "", v); return v }
        /^#/ { next }
        /^[ \t]*$/ { flush(); next }
        /^[ \t]/ { if (key != "") f[key] = f[key] " " trim($0); next }
        { key = tolower(substr($0, 1, index($0, ":") - 1)); f[key] = trim(substr($0, index($0, ":") + 1)) }
        END { flush() }' "$f"
    else
      # One-line format: deb [opt=value ...] URI SUITE COMPONENT...
      sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && NF >= 3 { print $2, $3 }'
    fi
  done
}

debian_mirror() {
  local uri suite
  while read -r uri suite; do
    [[ $suite == *-security || $suite == */updates ]] && continue
    echo "${uri%/}"
    return 0
  done < <(apt_deb_sources)
  return 1
}

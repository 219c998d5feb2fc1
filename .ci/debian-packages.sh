# Sourced by .ci/fetch-pythons and .ci/fetch-gdbs: Debian packages from a suite's verified
# index, never installed (the scripts unpack them with `dpkg-deb -x` side by side).
#
# The sourcing script sets $cache (a directory of its own), $mirror (.ci/apt-sources.sh's
# debian_mirror) and a function `say`. Then:
#
#   fetch_index SUITE [ARCH]
#                          downloads SUITE's InRelease, verifies it with gpgv and Debian's
#                          archive keyring, downloads main/binary-ARCH/Packages.xz (ARCH: amd64
#                          unless given, e.g. arm64) and checks its SHA-256 against the Release;
#                          sets index=<the unpacked Packages>. Once per run, suite and
#                          architecture (removed at exit).
#   locate PACKAGE         prints "FILENAME SHA256" of PACKAGE in $index.
#   library_closure PACKAGE...
#                          prints the PACKAGEs and every library package (lib*, not *-perl)
#                          they depend on, directly or not, one a line: the first alternative
#                          of each dependency that the index has (or provides); what a
#                          program needs to run, without the base system's tools (dpkg, perl,
#                          debconf, tzdata...) that the packages' scripts would use.
#   download_and_unpack PACKAGE DEBS_DIR ROOT
#                          downloads PACKAGE, checks its SHA-256 against $index and unpacks it
#                          into ROOT; returns 1 (and says why) if any step fails.
#   unpack_closure DIR PACKAGE...
#                          PACKAGEs and their library_closure, the C and C++ runtime (libc6,
#                          libstdc++6, libgcc-s1) into DIR/runtime, the rest into DIR/root; a
#                          program of another release runs only on its own runtime.
#   runtime_wrapper PATH DIR PROGRAM [ARG...]
#                          writes a script at PATH that runs DIR/root/PROGRAM [ARG...] "$@" on
#                          DIR/runtime's loader and libraries, then DIR/root's, with
#                          PYTHONHOME=DIR/root/usr (an embedded Python finds its own release's
#                          standard library). With HOST_RUNTIME=1: on this machine's loader, C
#                          and C++ runtime instead (LD_LIBRARY_PATH=DIR/root's libraries).
#   suite_libc_is_older    whether $index's libc6 is older than this machine's.
#
# Source packages (to build what the suite packages no binary of, e.g. a free-threaded CPython):
#
#   fetch_source_index SUITE
#                          as fetch_index, for main/source/Sources.xz; sets sources=<the
#                          unpacked Sources>. Once per run and suite (removed at exit).
#   download_source PACKAGE DIR
#                          downloads every file of PACKAGE's .dsc (as $sources lists them; its
#                          newest version where several are listed) from the pool into DIR, each
#                          checked against Sources' Checksums-Sha256 (a file already there that
#                          matches is kept); sets source_version=<its version>; returns 1 (and
#                          says why) if any step fails.

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
index=""
sources=""
source_version=""
trap 'rm -rf "$cache"/.index-*' EXIT

fetch_index() {
  local suite=$1 arch=${2:-amd64}
  local work=$cache/.index-$suite${2:+-$arch}
  index=$work/Packages
  [[ -s $index ]] && return 0
  rm -rf "$work" && mkdir -p "$work" || return 1
  fetch_release "$suite" "$work" || return 1
  fetch_checked "$suite" "main/binary-$arch/Packages.xz" "$work/Packages.xz" "$work" || return 1
  xz -dc "$work/Packages.xz" >"$index.new" && mv "$index.new" "$index"
}

# The verified Release of SUITE into $1 (a directory); 1 if it cannot be had or does not verify.
fetch_release() {
  local suite=$1 work=$2
  curl -fsS --max-time 60 -o "$work/InRelease" "$mirror/dists/$suite/InRelease" 2>"$work/curl.log" || {
    say "$mirror/dists/$suite/InRelease: $(tail -c 200 "$work/curl.log")"; return 1; }
  gpgv --keyring "$keyring" --output "$work/Release" "$work/InRelease" 2>/dev/null || {
    say "$suite's InRelease does not verify with $keyring"; return 1; }
}

# Downloads $mirror/dists/SUITE/PATH into FILE and checks it against WORK/Release's SHA256 list.
fetch_checked() {
  local suite=$1 path=$2 file=$3 work=$4 want got
  curl -fsS --max-time 300 -o "$file" "$mirror/dists/$suite/$path" || return 1
  want=$(awk '/^SHA256:/{s=1;next} /^[^ ]/{s=0} s && $3==file{print $1}' file="$path" "$work/Release")
  got=$(sha256sum "$file" | cut -d' ' -f1)
  [[ -n $want && $want == "$got" ]] || { say "$suite's $path does not match its Release"; return 1; }
}

fetch_source_index() {
  local suite=$1
  local work=$cache/.index-$suite-source
  sources=$work/Sources
  [[ -s $sources ]] && return 0
  rm -rf "$work" && mkdir -p "$work" || return 1
  fetch_release "$suite" "$work" || return 1
  fetch_checked "$suite" main/source/Sources.xz "$work/Sources.xz" "$work" || return 1
  xz -dc "$work/Sources.xz" >"$sources.new" && mv "$sources.new" "$sources"
}

download_source() {
  local package=$1 dir=$2 version="" directory="" v d sha size name
  # "V VERSION DIRECTORY" per stanza of PACKAGE, then "F VERSION SHA256 SIZE NAME" per file.
  local listing
  listing=$(awk -v want="$package" '
    /^Package: /{p=$2; v=""; d=""; c=0}
    p==want && /^Version: /{v=$2}
    p==want && /^Directory: /{d=$2}
    p==want && /^Checksums-Sha256:/{c=1; next}
    p==want && c && /^ /{f[n++]=$1 " " $2 " " $3; next}
    {c=0}
    /^$/{ if (p==want && v!="" && d!="") { print "V", v, d; for (i=0; i<n; i++) print "F", v, f[i] }
          p=""; n=0 }' "$sources")
  # Sources may list several versions of a package (the newest is kept in the pool).
  while read -r v d; do
    if [[ -z $version ]] || dpkg --compare-versions "$v" gt "$version"; then version=$v; directory=$d; fi
  done < <(awk '$1=="V"{print $2, $3}' <<<"$listing")
  [[ -n $directory ]] || { say "source package $package is not in the Sources index"; return 1; }
  mkdir -p "$dir" || return 1
  while read -r sha size name; do
    [[ -n $name && $name != */* ]] || continue
    if [[ ! -s $dir/$name || $(sha256sum "$dir/$name" | cut -d' ' -f1) != "$sha" ]]; then
      if ! curl -fsS --max-time 600 -o "$dir/$name" "$mirror/$directory/$name" 2>"$dir/.curl.log" ||
         [[ $(sha256sum "$dir/$name" | cut -d' ' -f1) != "$sha" ]]; then
        say "cannot download $name of source package $package (or its SHA-256 differs): $(tail -c 200 "$dir/.curl.log")"
        return 1
      fi
    fi
  done < <(awk -v v="$version" '$1=="F" && $2==v {print $3, $4, $5}' <<<"$listing")
  rm -f "$dir/.curl.log"
  source_version=$version
}

locate() {
  awk -v want="$1" '/^Package: /{p=$2} /^Filename: /{f=$2} /^SHA256: /{h=$2}
                    /^$/{ if (p==want) {print f, h; exit} p=""; f=""; h="" }' "$index"
}

library_closure() {
  # Debian 12's python3.11 (.ci/packages.txt) where no `python3` is installed.
  "$(command -v python3 || command -v python3.11)" - "$index" "$@" <<'PY'
import sys

packages, provided_by = {}, {}
fields = {}
with open(sys.argv[1], encoding="utf-8", errors="replace") as index:
    for line in index:
        if line.strip() == "":
            name = fields.get("Package")
            if name and name not in packages:
                packages[name] = fields
                for virtual in fields.get("Provides", "").split(","):
                    provided_by.setdefault(virtual.split("(")[0].strip(), name)
            fields = {}
        elif not line[0].isspace():
            key, _, value = line.partition(":")
            fields[key] = value.strip()

def is_library(name):
    return name.startswith("lib") and not name.endswith("-perl")

wanted, seen = list(sys.argv[2:]), []
while wanted:
    name = wanted.pop()
    if name in seen:
        continue
    seen.append(name)
    for field in ("Pre-Depends", "Depends"):
        for dependency in filter(None, packages.get(name, {}).get(field, "").split(",")):
            for alternative in dependency.split("|"):
                wanted_name = alternative.split("(")[0].split(":")[0].strip()
                wanted_name = wanted_name if wanted_name in packages else provided_by.get(wanted_name)
                if wanted_name:
                    if is_library(wanted_name):
                        wanted.append(wanted_name)
                    break
print("\n".join(seen))
PY
}

download_and_unpack() {
  local package=$1 debs=$2 root=$3 file sha deb
  read -r file sha <<<"$(locate "$package")"
  [[ -n ${file:-} ]] || { say "$package is not in the index"; return 1; }
  deb=$debs/${file##*/}
  if ! curl -fsS --max-time 300 -o "$deb" "$mirror/$file" ||
     [[ $(sha256sum "$deb" | cut -d' ' -f1) != "$sha" ]]; then
    say "cannot download $package (or its SHA-256 differs)"; return 1
  fi
  dpkg-deb -x "$deb" "$root"
}

unpack_closure() {
  local dir=$1 package into
  shift
  mkdir -p "$dir/debs" "$dir/root" "$dir/runtime" || return 1
  for package in $(library_closure "$@" libc6 libstdc++6 libgcc-s1); do
    case $package in libc6|libstdc++6|libgcc-s1) into=$dir/runtime ;; *) into=$dir/root ;; esac
    download_and_unpack "$package" "$dir/debs" "$into" || return 1
  done
  rm -rf "$dir/debs"
}

# Before the /usr merge (bullseye) libraries are in lib/ too.
library_dirs() { echo "$1/lib/x86_64-linux-gnu:$1/usr/lib/x86_64-linux-gnu"; }

runtime_wrapper() {
  local path=$1 dir=$2 program=$3 args="" arg loader
  shift 3
  for arg in "$@"; do args+=" \"$arg\""; done
  {
    echo "#!/bin/sh"
    echo "# $program of $(basename "$dir") (.ci/$(basename "$0"))"
    echo "PYTHONHOME=\"$dir/root/usr\"; export PYTHONHOME"
    if [[ ${HOST_RUNTIME:-0} == 1 ]]; then
      echo "LD_LIBRARY_PATH=\"$(library_dirs "$dir/root")\"; export LD_LIBRARY_PATH"
      echo "exec \"$dir/root/$program\"$args \"\$@\""
    else
      loader=$(ls "$dir"/runtime/{usr/,}lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 2>/dev/null | head -n1)
      echo "exec \"$loader\" --library-path \"$(library_dirs "$dir/runtime"):$(library_dirs "$dir/root")\" \"$dir/root/$program\"$args \"\$@\""
    fi
  } >"$path" && chmod 755 "$path"
}

suite_libc_is_older() {
  local suite_libc host_libc
  suite_libc=$(awk '/^Package: libc6$/{p=1} p && /^Version:/{print $2; exit}' "$index")
  host_libc=$(dpkg-query -W -f='${Version}' libc6 2>/dev/null)
  [[ -n $suite_libc && -n $host_libc ]] && dpkg --compare-versions "$suite_libc" lt "$host_libc"
}

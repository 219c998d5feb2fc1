# Sourced by .ci/fetch-pythons and .ci/fetch-gdbs: Debian packages from a suite's verified
# index, never installed (the scripts unpack them with `dpkg-deb -x` side by side).
#
# The sourcing script sets $cache (a directory of its own), $mirror (.ci/apt-sources.sh's
# debian_mirror) and a function `say`. Then:
#
#   fetch_index SUITE      downloads SUITE's InRelease, verifies it with gpgv and Debian's
#                          archive keyring, downloads main/binary-amd64/Packages.xz and checks
#                          its SHA-256 against the Release; sets index=<the unpacked Packages>.
#                          Once per run and suite (removed at exit).
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

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
index=""
trap 'rm -rf "$cache"/.index-*' EXIT

fetch_index() {
  local suite=$1 work=$cache/.index-$1
  index=$work/Packages
  [[ -s $index ]] && return 0
  rm -rf "$work" && mkdir -p "$work" || return 1
  curl -fsS --max-time 60 -o "$work/InRelease" "$mirror/dists/$suite/InRelease" 2>"$work/curl.log" || {
    say "$mirror/dists/$suite/InRelease: $(tail -c 200 "$work/curl.log")"; return 1; }
  gpgv --keyring "$keyring" --output "$work/Release" "$work/InRelease" 2>/dev/null || {
    say "$suite's InRelease does not verify with $keyring"; return 1; }
  curl -fsS --max-time 300 -o "$work/Packages.xz" "$mirror/dists/$suite/main/binary-amd64/Packages.xz" || return 1
  local want got
  want=$(awk '/^SHA256:/{s=1;next} /^[^ ]/{s=0} s && $3=="main/binary-amd64/Packages.xz"{print $1}' "$work/Release")
  got=$(sha256sum "$work/Packages.xz" | cut -d' ' -f1)
  [[ -n $want && $want == "$got" ]] || { say "$suite's Packages.xz does not match its Release"; return 1; }
  xz -dc "$work/Packages.xz" >"$index.new" && mv "$index.new" "$index"
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

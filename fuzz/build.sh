#!/usr/bin/env bash
# Builds the libFuzzer target with ASan and UBSan:
#   bash fuzz/build.sh          -> fuzz/out/core_fuzzer
# Needs clang-14 and libclang-rt-14-dev (apt-get install -y clang-14 libclang-rt-14-dev).
# Compiles core/*/*.cc (not *_test.cc) as Bazel would (-I. from the workspace root, C++20), fmt header-only.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CXX=${CXX:-clang++-14}
out=fuzz/out
mkdir -p "$out/obj"
flags=(-std=c++20 -O1 -g -I. -DFMT_HEADER_ONLY -fno-omit-frame-pointer
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
# The header Bazel generates for `pyunwind version` (packaging/BUILD), made the same way.
mkdir -p "$out/gen/packaging"
version=$(sed -n 's/^PYUNWIND_VERSION = "\(.*\)"$/\1/p' packaging/version.bzl)
sh packaging/build_info.sh "$version" /nonexistent > "$out/gen/packaging/build_info.h.new"
cmp -s "$out/gen/packaging/build_info.h.new" "$out/gen/packaging/build_info.h" ||
  mv "$out/gen/packaging/build_info.h.new" "$out/gen/packaging/build_info.h"
flags+=(-I"$out/gen")
objs=()
pids=()
for src in core/*/*.cc fuzz/state_file.cc fuzz/command_check.cc fuzz/core_fuzzer.cc; do
  [[ "$src" == *_test.cc ]] && continue  # unit tests kept beside their code
  obj="$out/obj/$(basename "${src%.cc}").o"
  objs+=("$obj")
  if [[ ! -e "$obj" || "$src" -nt "$obj" || -n "$(find core -name '*.h' -newer "$obj" -print -quit)" ]]; then
    "$CXX" "${flags[@]}" -c "$src" -o "$obj" &
    pids+=($!)
    if (( ${#pids[@]} >= ${JOBS:-2} )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done
# Objects of sources that are gone (a colleague renamed a file) must not be linked.
"$CXX" "${flags[@]}" -fsanitize=fuzzer "${objs[@]}" -o "$out/core_fuzzer"
echo "built $out/core_fuzzer"

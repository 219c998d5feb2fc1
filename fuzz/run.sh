#!/usr/bin/env bash
# Runs the fuzz target for SECONDS (default 600), niced, one process:
#   bash fuzz/run.sh 1800
# Works on a copy of fuzz/corpus in fuzz/out/corpus (new inputs stay out of the repo);
# crashes, timeouts and leaks go to fuzz/out/artifacts/. Builds first if needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-600}
[[ -x fuzz/out/core_fuzzer ]] || bash fuzz/build.sh
mkdir -p fuzz/out/corpus fuzz/out/artifacts
cp -n fuzz/corpus/* fuzz/out/corpus/ 2>/dev/null || true
cd fuzz/out  # fork mode writes its logs into the working directory
# -fork=1: one worker process at a time that keeps going after a crash, a timeout
# (-timeout seconds per input) or an out-of-memory (-rss_limit_mb), so that one run
# collects every distinct finding in artifacts/.
exec nice -n 10 ./core_fuzzer corpus \
  -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
  -max_len=1048576 -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -print_final_stats=1 -artifact_prefix=artifacts/ "${@:2}"

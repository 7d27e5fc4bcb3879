#!/usr/bin/env bash
# Build the libFuzzer harnesses in their own build directory and run each
# for SECONDS (default 60), seeded from the repository's tests.
#   fuzz/run.sh [SECONDS] [HARNESS...]     HARNESS: program bir_run config npy dump
# Any finding (crash, sanitizer report, timeout, out-of-memory) leaves its
# input in build-fuzz/findings/<harness>/ and makes the script exit 1; turn
# it into a regression test (docs/internals/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(program bir_run config npy dump)
out=build-fuzz
mkdir -p "$out"
CC=clang cmake -S . -B "$out" -DTRNSIM_FUZZ=ON -DTRNSIM_STATIC_PLUGINS=ON -DTRNSIM_BUILD_TESTS=OFF \
  -DTRNSIM_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
cmake --build "$out" -j"${FUZZ_JOBS:-2}" --target fuzzers > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

# Seeds: copies of the repository's own inputs (the corpora grow in $out).
seed() { # harness, then find arguments
  local h=$1; shift
  mkdir -p "$out/corpus/$h"
  find "$@" -type f -size -256k -exec cp -n {} "$out/corpus/$h/" \; 2>/dev/null || true
  cp -n fuzz/seeds/"$h"/* "$out/corpus/$h/" 2>/dev/null || true
}
seed program tests examples -name '*.json' ! -name '*bir*'
seed bir_run tests examples -name '*bir*.json'
seed config config tests -name '*.cfg'
seed npy tests -name '*.npy'
# dump folders: real dumps of the harness's own programs, made by the build
# under test (their digests are of its config), packed (fuzz/fuzz_dump.c)
mkdir -p "$out/corpus/dump"
FUZZ_DUMP_SEEDS="$PWD/$out/corpus/dump" "$out/fuzz_dump" -runs=0 > "$out/fuzz_dump_seeds.log" 2>&1 ||
  { tail -30 "$out/fuzz_dump_seeds.log"; exit 1; }

# libconfig's one known leak, suppressed by name (the file says why)
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
status=0
for h in "${harnesses[@]}"; do
  mkdir -p "$out/findings/$h"
  dict=fuzz/dict/$h.dict
  [ "$h" = bir_run ] && dict=fuzz/dict/program.dict
  echo "== fuzz_$h: ${secs}s =="
  set +e
  "$out/fuzz_$h" "$out/corpus/$h" -dict="$dict" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$out/findings/$h/" -print_final_stats=1 > "$out/fuzz_$h.log" 2>&1
  rc=$?
  set -e
  grep -E "^stat::number_of_executed_units|^Done|ERROR|SUMMARY" "$out/fuzz_$h.log" | head -5
  if [ $rc -ne 0 ]; then
    echo "fuzz_$h: FINDING (exit $rc); input in $out/findings/$h/, log $out/fuzz_$h.log"
    tail -40 "$out/fuzz_$h.log"
    status=1
  fi
done
exit $status

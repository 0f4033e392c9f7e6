#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole
# test suite: unit + end-to-end tests (Release), the same under ASan+UBSan,
# the threaded parts under TSan, and bounded libFuzzer runs of the text
# parser and the container reader.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
JOBS=$(nproc)
# Sanitizer builds: -O1 with line tables only (stack traces keep file:line; builds take far less time).
SANITIZER_FLAGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
FUZZ_SECONDS=${LOCKSTEP_FUZZ_SECONDS:-30}

# Each stage's heading says when it starts (seconds since the script started,
# set-up and the Release build included), so a slow stage shows in the log.
step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

# Commands run side by side: start_job NAME LOG COMMAND... starts COMMAND in
# the background with its output in LOG; wait_jobs SUMMARY waits for every
# job started, printing "NAME: " and what the function SUMMARY prints of its
# log for one that passed, the end of its log for one that failed; it fails
# if any did.
job_names=() job_logs=() job_pids=()
start_job() {
  local name=$1 log=$2
  shift 2
  "$@" >"$log" 2>&1 &
  job_names+=("$name") job_logs+=("$log") job_pids+=($!)
}
wait_jobs() {
  local summary=$1 failed=0 i
  for i in "${!job_pids[@]}"; do
    if wait "${job_pids[$i]}"; then
      echo "${job_names[$i]}: $("$summary" "${job_logs[$i]}")"
    else
      tail -n 200 "${job_logs[$i]}"; echo "${job_names[$i]} failed (log: ${job_logs[$i]})"; failed=1
    fi
  done
  job_names=() job_logs=() job_pids=()
  return $failed
}
gtest_summary() { grep -E '^\[  PASSED  \]' "$1"; }
fuzz_summary() { echo "$(grep -E 'stat::number_of_executed_units' "$1" | awk '{print $2}') inputs, no failure"; }

step "Release tests"
(cd build && ctest --output-on-failure --no-tests=error -j"$JOBS")

step "ASan+UBSan build (clang) with the fuzz targets"
if [ ! -f build-asan/CMakeCache.txt ]; then
  CXX=clang++ cmake -S . -B build-asan "${SANITIZER_FLAGS[@]}" -DLOCKSTEP_SANITIZE_ADDRESS=ON \
    -DLOCKSTEP_FUZZ=ON -DLOCKSTEP_BENCH=OFF >/dev/null
fi
scripts/build.sh build-asan
# The two exhaustive engine sweeps (every schedule x thread count x partition
# on every trace) and the reference runs (every counter of 31 runs against
# tests/reference) run in the Release stage only; the engine's other tests,
# the same code paths on the same traces, run here.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure --no-tests=error -j"$JOBS" -E 'Engine\.EverySchedule|ReferenceRuns')

step "TSan build (clang): lockstep's own threads (the threaded engine and its semaphores, block streams, static tables)"
# The reference runs are left out here (they check results, the Release stage
# runs them; under TSan they took 110 s of a 2-core CI run). What runs on
# oneTBB is left out here — the conversion pipeline and the fast models'
# threads (memory and abstract models: their thread-count identity is tested
# in the Release and ASan+UBSan stages): Debian's libtbb is not built with
# TSan, so its internal hand-offs show up as false races. The filter, and the
# test files the TSan test binary is built from, come from one list in
# tests/CMakeLists.txt.
if [ ! -f build-tsan/CMakeCache.txt ]; then
  CXX=clang++ cmake -S . -B build-tsan "${SANITIZER_FLAGS[@]}" -DLOCKSTEP_SANITIZE_THREAD=ON -DLOCKSTEP_BENCH=OFF >/dev/null
fi
scripts/build.sh build-tsan --target lockstep_tests lockstep
TSAN_FILTER=$(cat build-tsan/tests/tsan_gtest_filter.txt)  # (tests/CMakeLists.txt: LOCKSTEP_TSAN_TESTS)
# Run as GoogleTest shards side by side (each test in exactly one), one per
# core up to 4.
SHARDS=$((JOBS < 4 ? JOBS : 4))
for ((k = 0; k < SHARDS; k++)); do
  start_job "TSan shard $k" "build-tsan/tsan-shard-$k.log" \
    env TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" GTEST_TOTAL_SHARDS="$SHARDS" GTEST_SHARD_INDEX="$k" \
    ./build-tsan/tests/lockstep_tests --gtest_filter="$TSAN_FILTER"
done
wait_jobs gtest_summary

step "Fuzzing (${FUZZ_SECONDS}s per target)"
seeds=build-asan/fuzz-seeds
rm -rf "$seeds" && mkdir -p "$seeds/text_parser" "$seeds/container_reader" "$seeds/tracez"
./build/lockstep gen reduce -o "$seeds/gen" --size 2K --quiet
cp "$seeds/gen/kernel-1.traceg" "$seeds/text_parser/"
# The same as tracer version 6 (cluster lines, NoVal) for the parser's version 6 paths.
sed -e 's/^-accelsim tracer version = 5$/-accelsim tracer version = 6/' \
    -e 's/^\(thread block = .*\)$/\1\ncluster id = 0,0,0\ncluster cta = 0,0,0\ncluster rank = 0/' \
    -e 's/^\([0-9a-f]\{4\} [0-9a-f]\{8\} .*[^ ]\) *$/\1 NoVal/' \
    "$seeds/gen/kernel-1.traceg" > "$seeds/text_parser/kernel-1-v6.traceg"
./build-asan/tests/fuzz/make_tracez_seed "$seeds/gen/kernel-1.traceg" "$seeds/tracez/kernel-1.tracez"
./build/lockstep convert "$seeds/gen" -o "$seeds/container_reader/reduce.lst" --quiet
./build/lockstep convert "$seeds/gen" -o "$seeds/container_reader/reduce-v2.lst" --quiet --format-version 2
# The targets fuzz side by side, each for FUZZ_SECONDS.
for target in text_parser container_reader tracez; do
  mkdir -p "build-asan/fuzz-corpus/$target"
  start_job "fuzz_$target" "build-asan/fuzz-$target.log" \
    ./build-asan/tests/fuzz/fuzz_$target -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 "build-asan/fuzz-corpus/$target" "$seeds/$target"
done
wait_jobs fuzz_summary

step "All test stages passed"

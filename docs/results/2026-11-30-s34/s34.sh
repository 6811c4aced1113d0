#!/usr/bin/env bash
# Session 34 on the GPU machine (issue 16): the small-range graph. The build applies
# .bench/s34/scratch-small-off.patch (never committed): SX_NO_SMALL=1 turns the small path off,
# so one binary compares both. Phases: build, tests, memcheck, lat, thr.
set -uo pipefail
phases="$*"
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b; s=/tmp/src
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
tests="matching_gpu_tests matcher_api_tests"
mb=$b/bench/matching/matching_bench
for phase in $phases; do case $phase in
build)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; git status --short | head; } > $out/machine.txt 2>&1
  rm -rf $s && mkdir -p $s && tar -c --exclude=./.git . | tar -x -C $s && (cd $s && patch -p1 < .bench/s34/scratch-small-off.patch) > $out/patch.log 2>&1
  ( cmake -S $s -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null &&
    timeout 560 cmake --build $b -j $jobs --target matching_bench $tests ) > $out/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build.log | head -20; tail -2 $out/build.log
  ;;
tests)
  for t in $tests; do f=$(find $b/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(grep -E 'PASSED|FAILED' $out/test-$t.log | head -5 | tr '\n' ' ')"; done
  ;;
memcheck)
  f=$(find $b/tests -name matching_gpu_tests -type f | head -1)
  timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='MatchingGpu.SmallRanges*:Gpu/MatchingConformance.RandomWorkloads*/hook_small_ranges:Gpu/MatchingConformance.EventsWithManyNames*/hook_small_ranges:Gpu/MatchingConformance.HandWorked*/matcher_gpu0_one_at_a_time' > $out/memcheck.log 2>&1
  el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/memcheck.log | head -3 | tr '\n' ' ')"
  timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='MatchingGpu.SmallRanges*' > $out/racecheck.log 2>&1
  el "racecheck rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $out/racecheck.log | head -3 | tr '\n' ' ')"
  ;;
lat)
  for rep in $(seq ${ROUNDS:-5}); do for v in small off; do
    echo "== gpu0 latency $v #$rep"
    if [ $v = off ]; then env SX_NO_SMALL=1 $mb --experiment default --devices gpu0 --events 1000 --repeats 5 --mode latency 2>&1
    else $mb --experiment default --devices gpu0 --events 1000 --repeats 5 --mode latency 2>&1; fi | tail -4
  done; done > $out/lat.txt 2>&1; el "lat done"
  ;;
esac; done
for phase in $phases; do case $phase in
thr)
  for rep in 1 2; do for cfg in "gpu0 4096" "all 4096" "all 65536"; do for v in small off; do
    set -- $cfg; echo "== $1 batch $2 $v #$rep"
    if [ $v = off ]; then env SX_NO_SMALL=1 $mb --experiment default --devices $1 --batch $2 --events 131072 --repeats 3 --mode throughput 2>&1
    else $mb --experiment default --devices $1 --batch $2 --events 131072 --repeats 3 --mode throughput 2>&1; fi | grep -E "^default|per batch"
  done; done; done > $out/thr.txt 2>&1; el "thr done"
  ;;
mut)
  (cd $s && patch -p1 < .bench/s34/mutation-warp.patch && cmake --build $b --target matching_gpu_tests) > $out/mut-build.log 2>&1; el "mutation build rc=$?"
  f=$(find $b/tests -name matching_gpu_tests -type f | head -1)
  timeout 200 $f --gtest_brief=1 --gtest_filter='*hook_small_ranges*:MatchingGpu.SmallRanges*:*one_at_a_time*' > $out/mut-tests.log 2>&1
  el "mutated tests rc=$? $(grep -E 'PASSED|FAILED  \] [0-9]' $out/mut-tests.log | head -3 | tr '\n' ' ')"
  ;;
esac; done

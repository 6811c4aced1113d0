#!/usr/bin/env bash
# Session 23 on the GPU machine (issue 16). The tree carries .bench/scratch-ab.patch, never
# committed (a copy beside this script): environment overrides of three tuning numbers so that one binary compares them
# (SX_MIN_DIRECT: policy::Gpu::min_direct_events; SX_MIN_CPU_CHUNK: policy::Batches::min_cpu_chunk;
# SX_BEHIND=1: later pieces prepared on the helpers even when cores match). Unset, the binary is
# the committed code. Phases:
#   build   matching targets
#   tests   the matching GPU and API tests; compute-sanitizer memcheck on the direct-copy tests
#   dside   gpu0 batch sweep, direct copies from every size (SX_MIN_DIRECT=0) against the policy
#   aside   all devices against gpu0 at 4 096 and 65 536 events, the other overrides
#   pack    everything into one file
set -uo pipefail
phases="$*"  # the phase loops read this: `set --` in a phase would change "$@"
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b; o=/tmp/o; mkdir -p $o
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
tests="matching_gpu_tests matcher_api_tests prepared_events_tests"
mb=$b/bench/matching/matching_bench
for phase in $phases; do case $phase in
build)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; } > $o/machine.txt 2>&1
  ( cmake -S $root -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null &&
    cmake --build $b -j $jobs --target matching_bench $tests ) > $o/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $o/build.log | head -20
  ;;
tests)
  for t in $tests; do f=$(find $b/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $o/test-$t.log 2>&1; el "$t rc=$? $(grep -E 'PASSED|FAILED' $o/test-$t.log | head -3 | tr '\n' ' ')"; done
  f=$(find $b/tests -name matching_gpu_tests -type f | head -1)
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='MatchingGpu.PageLocked*:Gpu/MatchingConformance.RandomWorkloads*/hook_page_locked' > $o/sanitizer-memcheck.log 2>&1
  el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $o/sanitizer-memcheck.log | head -3 | tr '\n' ' ')"
  ;;
dside)
  for rep in 1 2 3; do for d in 0 default; do
    echo "== gpu0 batch sweep, min direct $d, #$rep"
    if [ $d = default ]; then $mb --experiment batch --devices gpu0 --events 65536 --repeats 3 --mode throughput 2>&1
    else SX_MIN_DIRECT=$d $mb --experiment batch --devices gpu0 --events 65536 --repeats 3 --mode throughput 2>&1; fi | grep -E "^batch|per batch"
  done; done > $o/dside.txt 2>&1; el "dside done"
  ;;
aside)
  for rep in 1 2; do for batch in 4096 65536; do
    for cfg in "gpu0" "all" "all SX_MIN_CPU_CHUNK=16" "all SX_BEHIND=1" "all SX_MIN_CPU_CHUNK=16 SX_BEHIND=1" "all SX_BEHIND=1 --threads 8"; do
      set -- $cfg; dev=$1; shift; envs=""; args=""
      for x in "$@"; do case $x in SX_*) envs="$envs $x";; *) args="$args $x";; esac; done
      echo "== $dev batch $batch [$envs ] [$args ] #$rep"
      env $envs $mb --experiment default --devices $dev --batch $batch --events 131072 --repeats 3 --mode throughput $args 2>&1 | grep -E "^default|per batch"
    done
  done; done > $o/aside.txt 2>&1; el "aside done"
  ;;
esac; done
# Appended, second part: the scheduler's runs end without waiting for workers that have not woken
# (scheduler/job.cpp join/leave). The tree carries .bench/scratch-waitall.patch (a copy beside this
# script), never committed:
# SX_WAIT_ALL=1 restores the old rule (a run ends when every worker has left) in the same binary.
# Phases: fbuild (every target), ftests (ctest, every label), fbench (scheduler_bench and
# matching_bench, SX_WAIT_ALL=1 against the new rule), then pack.
f=/tmp/f
for phase in $phases; do case $phase in
fbuild)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; } > $o/machine.txt 2>&1
  ( cmake -S $root -B $f -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null && timeout 540 cmake --build $f -j $jobs ) > $o/fbuild.log 2>&1
  el "full build rc=$?"; grep -E "error|FAILED" $o/fbuild.log | head -20; tail -1 $o/fbuild.log
  ;;
ftests)
  timeout 500 ctest --test-dir $f -j $jobs --timeout 300 > $o/ctest.log 2>&1; el "ctest rc=$?"
  grep -E "tests passed|tests failed|\*\*\*|Failed|Timeout" $o/ctest.log | head -30
  ;;
fbench)
  sb=$f/bench/scheduler/scheduler_bench; fmb=$f/bench/matching/matching_bench
  for rep in 1 2; do for w in new old; do
    echo "== scheduler_bench $w #$rep"
    if [ $w = old ]; then export SX_WAIT_ALL=1; else unset SX_WAIT_ALL; fi
    $sb --benchmark_filter='RunLatency|BatchEmptyTasks/1000$|ParallelForEmpty' --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 | grep -E "median"
  done; done > $o/fsched.txt 2>&1; unset SX_WAIT_ALL; el "scheduler_bench done"
  for rep in 1 2 3; do for batch in 4096 65536; do for cfg in "gpu0 new" "all new" "all old" "cpu new" "cpu old"; do
    set -- $cfg; [ $2 = old ] && export SX_WAIT_ALL=1 || unset SX_WAIT_ALL
    [ $1 = cpu ] && [ $batch = 65536 ] && continue
    echo "== $1 batch $batch $2 #$rep"
    $fmb --experiment default --devices $1 --batch $batch --events 131072 --repeats 3 --mode throughput 2>&1 | grep -E "^default|per batch"
  done; done; done > $o/fmatch.txt 2>&1; unset SX_WAIT_ALL; el "matching done"
  ;;
esac; done
# Appended, third part: the committed tree (no scratch patch). Phases: vbuild, vtests.
v=/tmp/v; vt="scheduler_tests scheduler_timing_tests core_tests output_file_cli_tests matching_gpu_tests matcher_api_tests"
for phase in $phases; do case $phase in
vbuild)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; cat /proc/sys/vm/overcommit_memory; } > $o/machine-v.txt 2>&1
  ( cmake -S $root -B $v -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null &&
    cmake --build $v -j $jobs --target sextant_cli $vt ) > $o/vbuild.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $o/vbuild.log | head -20
  ;;
vtests)
  for t in $vt; do f=$(find $v/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $o/v-$t.log 2>&1; el "$t rc=$? $(grep -E 'PASSED|FAILED' $o/v-$t.log | head -3 | tr '\n' ' ')"; done
  ;;
esac; done
# Appended, fourth part: the pool's limits for the matching team, with .bench/scratch-growth.patch
# (a copy beside this script): SX_GROWTH overrides ThroughputModelPolicy::growth (a fitted GPU's
# chunk lasts at most growth x the run so far, 8) and SX_MIN_SECONDS min_chunk_seconds (200 us).
# Phases: gbuild, gside.
g=/tmp/g
for phase in $phases; do case $phase in
gbuild)
  ( cmake -S $root -B $g -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $g -j $jobs --target matching_bench ) > $o/gbuild.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $o/gbuild.log | head -20
  ;;
gside)
  for rep in 1 2 3; do for batch in 4096 65536; do
    for cfg in "gpu0" "all" "all SX_GROWTH=1e6" "all SX_MIN_SECONDS=5e-5" "all SX_GROWTH=1e6 SX_MIN_SECONDS=5e-5"; do
      set -- $cfg; dev=$1; shift
      echo "== $dev batch $batch [$* ] #$rep"
      env "$@" $g/bench/matching/matching_bench --experiment default --devices $dev --batch $batch --events 131072 --repeats 3 --mode throughput 2>&1 | grep -E "^default|per batch"
    done
  done; done > $o/gside.txt 2>&1; el "gside done"
  ;;
esac; done
# Appended, fifth part: ranges inside a batch copied straight from the page-locked columns, with
# .bench/scratch-range.patch (a copy beside this script): SX_WHOLE_ONLY=1 copies only whole batches
# straight, as before. One phase, writing into $out as it goes (little device time was left).
r=/tmp/rr
for phase in $phases; do case $phase in
rall)
  ( cmake -S $root -B $r -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null &&
    cmake --build $r -j $jobs --target matching_gpu_tests matching_bench ) > $out/rbuild.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/rbuild.log | head -20
  f=$r/tests/matching/matching_gpu_tests
  timeout 60 $f --gtest_brief=1 > $out/r-matching_gpu_tests.log 2>&1; el "tests rc=$? $(grep -E 'PASSED|FAILED' $out/r-matching_gpu_tests.log | head -3 | tr '\n' ' ')"
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='MatchingGpu.PageLocked*' > $out/r-memcheck.log 2>&1
  el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/r-memcheck.log | head -3 | tr '\n' ' ')"
  for rep in 1 2; do for batch in 65536 4096; do for cfg in "all new" "all old" "gpu0 new"; do
    set -- $cfg; [ $2 = old ] && export SX_WHOLE_ONLY=1 || unset SX_WHOLE_ONLY
    echo "== $1 batch $batch $2 #$rep"
    timeout 20 $r/bench/matching/matching_bench --experiment default --devices $1 --batch $batch --events 131072 --repeats 3 --mode throughput 2>&1 | grep -E "^default|per batch"
  done; done; done >> $out/rside.txt 2>&1; el "rside done"
  ;;
esac; done
# Last: everything into one file (after every phase above).
for phase in $phases; do [ $phase = pack ] && { tar czf $out/s23.tgz -C $o . ; el "packed"; }; done

#!/usr/bin/env bash
# Session 24 on the GPU machine: the committed tree, built whole with CUDA. Phases:
#   build    every target (build folder /tmp/f, kept between calls)
#   tests    ctest, every label
#   sanit    compute-sanitizer memcheck: the page-locked matching tests (6352c56 had not run on a
#            GPU), the skycube device mixes on gpu0, the skyline front door on gpu0
#   match    matching_bench on gpu0 and on every device at 4 096 and 65 536 events, three rounds
#   sky      skyline_bench (the C++ skyline front door): one core, 16 cores, gpu0
#   x2       on nvidia-h200-x2: build the CLI (/tmp/x), then the skycube of anti 1M x 16 with MDMC
#            on gpu0 and on gpu0,gpu1, alternating, two rounds (issue 19's two-GPU scaling)
#   x4       the same on nvidia-h200-x4 with gpu0, gpu0,gpu1 and gpu0..gpu3, the last round with --report
# Logs go straight to $OUT (a call returns what it wrote even if it runs out of time).
set -uo pipefail
phases="$*"  # the phase loops read this: `set --` in a phase would change "$@"
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; f=/tmp/f
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
for phase in $phases; do case $phase in
build)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; } > $out/machine.txt 2>&1
  ( cmake -S $root -B $f -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null && timeout 500 cmake --build $f -j $jobs ) > $out/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build.log | head -20; tail -1 $out/build.log
  ;;
tests)
  timeout 400 ctest --test-dir $f -j $jobs --timeout 300 > $out/ctest.log 2>&1; el "ctest rc=$?"
  grep -E "tests passed|tests failed|\*\*\*|Failed|Timeout" $out/ctest.log | head -30
  ;;
sanit)
  cs="timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9"
  $cs $f/tests/matching/matching_gpu_tests --gtest_brief=1 --gtest_filter='MatchingGpu.PageLocked*:Gpu/MatchingConformance.RandomWorkloads*/hook_page_locked' > $out/memcheck-matching.log 2>&1
  el "memcheck matching rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/memcheck-matching.log | head -3 | tr '\n' ' ')"
  t=$(find $f/tests -name skycube_devices_gpu_tests -type f | head -1)
  $cs $t --gtest_brief=1 --gtest_filter='*Mdmc*:*Sdsc*' > $out/memcheck-skycube.log 2>&1
  el "memcheck skycube rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/memcheck-skycube.log | head -3 | tr '\n' ' ')"
  t=$(find $f/tests -name skyline_gpu_tests -type f | head -1)
  $cs $t --gtest_brief=1 > $out/memcheck-skyline.log 2>&1
  el "memcheck skyline rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/memcheck-skyline.log | head -3 | tr '\n' ' ')"
  ;;
match)
  mb=$f/bench/matching/matching_bench
  for rep in 1 2 3; do for batch in 4096 65536; do for dev in gpu0 all; do
    echo "== $dev batch $batch #$rep"
    timeout 30 $mb --experiment default --devices $dev --batch $batch --events 131072 --repeats 3 --mode throughput 2>&1 | grep -E "^default|per batch"
  done; done; done > $out/match.txt 2>&1; el "match done"
  ;;
sky)
  sb=$f/bench/skycube/skyline_bench
  { taskset -c 2 $sb --dists indep,anti --n 1000000 --d 4,8 --threads 1 --repeats 5
    taskset -c 2 $sb --dists indep,anti --n 200000 --d 12 --threads 1 --repeats 5
    $sb --dists indep,anti --n 1000000 --d 4,8 --threads 16 --repeats 5
    $sb --dists indep,anti --n 1000000 --d 4,8 --devices gpu0 --repeats 5; } > $out/sky.txt 2>&1; el "sky done"
  ;;
x2)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; } > $out/machine-x2.txt 2>&1
  ( cmake -S $root -B /tmp/x -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && timeout 400 cmake --build /tmp/x -j $jobs --target sextant_cli ) > $out/x2-build.log 2>&1
  el "x2 build rc=$?"; grep -E "error|FAILED" $out/x2-build.log | head
  for rep in 1 2; do for dev in gpu0 gpu0,gpu1; do
    echo "== $dev #$rep"
    timeout 120 /tmp/x/apps/sextant skycube --generate anti:1000000:16 --template mdmc --devices $dev --format binary --output /tmp/cube.bin 2>&1 | tail -2
    rm -f /tmp/cube.bin
  done; done > $out/x2.txt 2>&1; el "x2 done"
  ;;
x4)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; } > $out/machine-x4.txt 2>&1
  ( cmake -S $root -B /tmp/x -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && timeout 400 cmake --build /tmp/x -j $jobs --target sextant_cli ) > $out/x4-build.log 2>&1
  el "x4 build rc=$?"; grep -E "error|FAILED" $out/x4-build.log | head
  for rep in 1 2; do for dev in gpu0 gpu0,gpu1 gpu0,gpu1,gpu2,gpu3; do
    echo "== $dev #$rep"; r=""; [ $rep = 2 ] && r=--report
    timeout 120 /tmp/x/apps/sextant skycube --generate anti:1000000:16 --template mdmc --devices $dev --format binary --output /tmp/cube.bin $r 2>&1 | grep -v "computing the skycube"
    rm -f /tmp/cube.bin
  done; done > $out/x4.txt 2>&1; el "x4 done"
  ;;
esac; done

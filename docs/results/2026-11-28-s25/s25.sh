#!/usr/bin/env bash
# Session 25 on the GPU machine (nvidia-h200-x4). Phases:
#   build    the CLI, the GPU test binaries and stream_throughput with CUDA (/tmp/f), on a copy of
#            the tree with scratch-prepared-pinned.patch (MDMC's page-locked buffers prepared on
#            background threads while the host computes the extended skyline; measured, then not
#            committed) and scratch-no-prep.patch (SX_NO_PREP=1 skips that preparation: the code
#            before, in the same binary); the IBM DABA Lite driver (scratch, .bench/swag, not
#            committed) with g++ -O3 -march=native
#   tests    gpu_tests, skycube_gpu_tests, skycube_devices_gpu_tests, stream_window_gpu_tests
#   sanit    compute-sanitizer memcheck: the page-locked pool test, the MDMC device mixes on gpu0
#   x4       anti 1M x 16, MDMC, binary out, on gpu0 / gpu0,gpu1 / gpu0..gpu3, with and without the
#            prepared buffers, interleaved, three rounds, the last with --report
#   fine     issue 18's slide-1 table: stream_throughput --experiment fine --stage scan pinned to
#            core 2, DABA Lite pinned to core 3, two interleaved rounds
set -uo pipefail
phases="$*"
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; f=/tmp/f; src=/tmp/src
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
for phase in $phases; do case $phase in
build)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; } > $out/machine.txt 2>&1
  rm -rf $src && cp -r $root $src && (cd $src && patch -p1 < docs/results/2026-11-28-s25/scratch-prepared-pinned.patch && patch -p1 < docs/results/2026-11-28-s25/scratch-no-prep.patch) > $out/build.log 2>&1
  ( cmake -S $src -B $f -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null && timeout 420 cmake --build $f -j $jobs --target sextant_cli gpu_tests skycube_gpu_tests skycube_devices_gpu_tests stream_window_gpu_tests stream_throughput ) >> $out/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build.log | head -20; tail -1 $out/build.log
  g++ -O3 -march=native -DNDEBUG -std=c++17 -I$root/.bench/swag $root/.bench/swag/swag_bench.cc -o /tmp/swag_bench; el "swag rc=$?"
  ;;
tests)
  for t in gpu/gpu_tests gpu/skycube_gpu_tests scheduler/skycube_devices_gpu_tests window/stream_window_gpu_tests; do
    timeout 300 $f/tests/$t --gtest_brief=1 > /tmp/t.log 2>&1; rc=$?; cat /tmp/t.log >> $out/tests.log
    el "$t rc=$rc $(grep -E 'PASSED|FAILED|SKIPPED' /tmp/t.log | head -3 | tr '\n' ' ')"
  done
  ;;
sanit)
  cs="timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9"
  { $cs $f/tests/gpu/gpu_tests --gtest_brief=1 --gtest_filter='*Pinned*'
    $cs $f/tests/scheduler/skycube_devices_gpu_tests --gtest_brief=1 --gtest_filter='*Mdmc*'; } > $out/memcheck.log 2>&1
  el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/memcheck.log | tr '\n' ' ')"
  ;;
x4)
  for rep in 1 2 3; do for dev in gpu0 gpu0,gpu1 gpu0,gpu1,gpu2,gpu3; do for prep in no yes; do
    echo "== $dev prepared=$prep #$rep"; r=""; [ $rep = 3 ] && r=--report
    if [ $prep = no ]; then export SX_NO_PREP=1; else unset SX_NO_PREP; fi
    timeout 120 $f/apps/sextant skycube --generate anti:1000000:16 --template mdmc --devices $dev --format binary --output /tmp/cube.bin $r 2>&1 | grep -v "computing the skycube"
    rm -f /tmp/cube.bin
  done; done; done > $out/x4.txt 2>&1; unset SX_NO_PREP; el "x4 done"
  ;;
fine)
  for rep in 1 2; do
    echo "== round $rep"
    taskset -c 2 $f/bench/window/stream_throughput --experiment fine --stage scan --tuples 16777216 --repeats 3 --csv /tmp/fine-$rep.csv 2>&1
    taskset -c 3 /tmp/swag_bench 16777216 3 2>&1
  done > $out/fine.txt; el "fine done"
  ;;
esac; done
# Second call (h200): issue 18's slide-1 table side by side on the host of session 11's table.
#   side-build  stream_throughput of 88e072f (.bench/s25b/old.tar.gz, `git archive 88e072f`) and of
#               this tree, CPU only; the DABA Lite driver
#   side        three interleaved rounds, each process pinned: old, new (core 2), DABA Lite (core 3)
for phase in $phases; do case $phase in
side-build)
  rm -rf /tmp/oldsrc && mkdir -p /tmp/oldsrc && tar xzf $root/.bench/s25b/old.tar.gz -C /tmp/oldsrc
  for t in old new; do s=$root; [ $t = old ] && s=/tmp/oldsrc
    ( cmake -S $s -B /tmp/st-$t -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF >/dev/null && timeout 250 cmake --build /tmp/st-$t -j $jobs --target stream_throughput ) > /tmp/st-$t.log 2>&1
    el "$t build rc=$?"; grep -E "error|FAILED" /tmp/st-$t.log | head -5
  done
  g++ -O3 -march=native -DNDEBUG -std=c++17 -I$root/.bench/swag $root/.bench/swag/swag_bench.cc -o /tmp/swag_bench; el "swag rc=$?"
  ;;
side)
  { nproc; lscpu | grep "Model name"; } > $out/machine-side.txt
  for rep in 1 2 3; do for t in old new; do
    echo "== round $rep $t"; taskset -c 2 /tmp/st-$t/bench/window/stream_throughput --experiment fine --tuples 8388608 --repeats 3 --csv /tmp/side.csv 2>&1 | grep "^fine"
  done; echo "== round $rep DABA Lite"; taskset -c 3 /tmp/swag_bench 8388608 3; done > $out/side.txt 2>&1; el "side done"
  ;;
esac; done

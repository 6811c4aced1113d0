#!/usr/bin/env bash
# Session 21 on the GPU machine: GPU stream-window pushes (issue 18). Phases: build, batch, ncu, tests.
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; } > $out/machine.txt 2>&1
tests="stream_window_gpu_tests stream_window_gpu_emulation_tests"
st=$b/new/bench/window/stream_throughput
for phase in "$@"; do case $phase in
build)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $jobs --target stream_throughput sextant_cli $tests ) > $out/build-new.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build-new.log | head -20
  ;;
batch)
  for rep in 1 2 3; do
    $st --device gpu0 --experiment batch --tuples 4194304 --repeats 3 --csv $out/batch-$rep.csv 2>&1 | tail -20
  done > $out/batch.txt 2>&1; el "batch done"
  ;;
ncu)
  for kt in 16:16384 4096:524288; do kib=${kt%:*}; n=${kt#*:}
    echo "== batch $kib KiB, $n tuples"
    timeout 240 ncu -c 1500 --print-summary per-kernel --metrics gpu__time_duration.sum $st --device gpu0 --experiment batch --quick --batch $kib --tuples $n --repeats 1 2>&1 | grep -vE "^==PROF==" | tail -120
  done > $out/ncu.txt 2>&1; el "ncu done"
  ;;
tests)
  for t in $tests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(tail -1 $out/test-$t.log)"; done
  ;;
esac; done
# Appended: a host-side trace of the GPU stream stages (time in syncs, uploads, push, release,
# advance), from HEAD with .bench/trace.patch applied in a copy (scratch, not committed).
for phase in "$@"; do case $phase in
trace)
  rm -rf /tmp/trsrc && mkdir -p /tmp/trsrc && git archive HEAD | tar -x -C /tmp/trsrc && (cd /tmp/trsrc && git apply $root/.bench/trace.patch) &&
  ( cmake -S /tmp/trsrc -B $b/trace -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/trace -j $jobs --target stream_throughput ) > $out/build-trace.log 2>&1
  el "trace build rc=$?"
  for kib in 16 256 1024 4096 16384; do
    echo "== $kib KiB"
    SEXTANT_TRACE=1 $b/trace/bench/window/stream_throughput --device gpu0 --experiment batch --quick --batch $kib --tuples 4194304 --repeats 1 2>&1 | grep -E "trace|^batch"
  done > $out/trace.txt 2>&1; el "trace done"
  ;;
esac; done
# Appended: the GPU stream stages with fewer round trips and launches, against 278e565 (in
# .bench/base-278e565) built beside it and run interleaved. Phases: build2, tests2, side.
for phase in "$@"; do case $phase in
build2)
  old_src=$root/.bench/base-278e565
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $((jobs*5/8)) --target stream_throughput sextant_cli $tests ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/old -j $((jobs*3/8)) --target stream_throughput sextant_cli ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20; tail -1 $out/build-new.log
  ;;
tests2)
  for t in $tests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(grep -E 'PASSED|FAILED' $out/test-$t.log | head -3 | tr '\n' ' ')"; done
  f=$(find $b/new/tests -name stream_window_gpu_tests -type f | head -1)
  for tool in memcheck racecheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='GpuStreamWindow.TreesDeeper*:GpuStreamWindow.SmallBatch*:Gpu/StreamWindowConformance.*Sum*' > $out/sanitizer-$tool.log 2>&1
    el "$tool rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/sanitizer-$tool.log | head -3 | tr '\n' ' ')"
  done
  ;;
side)
  for rep in 1 2 3; do for tree in old new; do
    echo "== $tree #$rep"
    $b/$tree/bench/window/stream_throughput --device gpu0 --experiment batch --tuples 4194304 --repeats 3 --csv $out/side-$tree-$rep.csv 2>&1 | grep -E "^batch"
  done; done > $out/side.txt 2>&1; el "side done"
  for rep in 1 2; do for tree in old new; do for dev in gpu0 cpu; do
    echo "== generate 200M $dev $tree #$rep: $($b/$tree/apps/sextant window --generate 200000000 --type time --length 1000000 --slide 10000 --agg sum --device $dev --order fire --output /tmp/w200.csv 2>&1 | grep -iE 'tuples/s' | tail -1)"
  done; done; done > $out/gen200.txt 2>&1
  for rep in 1 2; do for batch in 131072 524288 1048576 2097152 4194304; do
    echo "== generate 200M gpu0 new --batch $batch #$rep: $($b/new/apps/sextant window --generate 200000000 --type time --length 1000000 --slide 10000 --agg sum --device gpu0 --batch $batch --order fire --output /tmp/w200.csv 2>&1 | grep -iE 'tuples/s' | tail -1)"
  done; done >> $out/gen200.txt 2>&1; el "gen200 done"
  ;;
esac; done
# Appended: the device time left allowed one tree: the new one, built alone, against the old
# tree's rounds of the first call (phase batch, same session, h200).
for phase in "$@"; do case $phase in
final)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $jobs --target stream_throughput sextant_cli stream_window_gpu_tests ) > $out/build-final.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build-final.log | head
  for rep in 1 2; do
    $st --device gpu0 --experiment batch --tuples 2097152 --repeats 3 --csv $out/final-$rep.csv 2>&1 | grep -E "^batch"
  done > $out/final.txt 2>&1; el "batch done"
  for batch in auto 131072 524288 1048576 2097152 4194304; do for dev in gpu0 cpu; do
    [ $dev = cpu ] && [ $batch != auto ] && continue
    echo "== generate 200M $dev --batch $batch: $($b/new/apps/sextant window --generate 200000000 --type time --length 1000000 --slide 10000 --agg sum --device $dev --batch $batch --order fire --output /tmp/w200.csv 2>&1 | grep -oE 'batch [0-9]+|throughput [0-9.]+ Mtuples/s \(operator [0-9.]+\)' | paste -sd' ')"
  done; done > $out/gen200.txt 2>&1; el "gen200 done"
  f=$(find $b/new/tests -name stream_window_gpu_tests -type f | head -1)
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='GpuStreamWindow.SmallBatch*' > $out/sanitizer-racecheck.log 2>&1
  el "racecheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/sanitizer-racecheck.log | head -3 | tr '\n' ' ')"
  ;;
esac; done

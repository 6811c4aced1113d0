#!/usr/bin/env bash
# Session 22 on the GPU machine. Phases:
#   build2  HEAD (new) and 278e565 (old, in .bench/base-278e565) side by side
#   tests2  the GPU stream-window tests, emulation tests and memcheck on a subset (new tree)
#   side    stream_throughput --experiment batch, old and new interleaved; generate 200M
#   match   matching_bench --experiment batch on gpu0 (where a batch's time goes)
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; which nsys ncu; } > $out/machine.txt 2>&1
tests="stream_window_gpu_tests stream_window_gpu_emulation_tests"
cfg() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=$3 >/dev/null; }
for phase in "$@"; do case $phase in
build2)
  ( cfg $root $b/new ON && cmake --build $b/new -j $((jobs*5/8)) --target stream_throughput sextant_cli matching_bench $tests ) > $out/build-new.log 2>&1 &
  ( cfg $root/.bench/base-278e565 $b/old OFF && cmake --build $b/old -j $((jobs*3/8)) --target stream_throughput sextant_cli ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20
  ;;
tests2)
  for t in $tests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(grep -E 'PASSED|FAILED' $out/test-$t.log | head -3 | tr '\n' ' ')"; done
  f=$(find $b/new/tests -name stream_window_gpu_tests -type f | head -1)
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='GpuStreamWindow.TreesDeeper*:GpuStreamWindow.SmallBatch*:Gpu/StreamWindowConformance.*Sum*' > $out/sanitizer-memcheck.log 2>&1
  el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/sanitizer-memcheck.log | head -3 | tr '\n' ' ')"
  ;;
side)
  for rep in 1 2 3; do for tree in old new; do
    echo "== $tree #$rep"
    $b/$tree/bench/window/stream_throughput --device gpu0 --experiment batch --tuples 4194304 --repeats 3 --csv $out/side-$tree-$rep.csv 2>&1 | grep -E "^batch"
  done; done > $out/side.txt 2>&1; el "side done"
  for rep in 1 2; do for tree in old new; do for dev in gpu0 cpu; do
    [ $dev = cpu ] && [ $tree = old ] && continue
    echo "== generate 200M $dev $tree #$rep: $($b/$tree/apps/sextant window --generate 200000000 --type time --length 1000000 --slide 10000 --agg sum --device $dev --order fire --output /tmp/w200.csv 2>&1 | grep -oE 'batch [0-9]+|throughput [0-9.]+ Mtuples/s \(operator [0-9.]+\)' | paste -sd' ')"
  done; done; done > $out/gen200.txt 2>&1; el "gen200 done"
  ;;
match)
  for rep in 1 2; do $b/new/bench/matching/matching_bench --experiment batch --devices gpu0 --events 65536 --repeats 3 --mode throughput 2>&1 | tail -8; done > $out/match.txt 2>&1; el "match done"
  ;;
esac; done
# Appended: event preparation in parts on helper threads (issue 16), one binary, the helpers on
# (default) and off (--prepare-helpers 0) interleaved. Phases: mbuild, mtests, mside, mncu.
o=/tmp/o; mkdir -p $o
mtests="matching_gpu_tests matcher_api_tests prepared_events_tests core_tests matching_cpu_tests"
mb=$b/new/bench/matching/matching_bench
for phase in "$@"; do case $phase in
mbuild)
  ( cfg $root $b/new ON && cmake --build $b/new -j $jobs --target matching_bench $mtests ) > $o/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $o/build.log | head -20
  ;;
mtests)
  for t in $mtests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $o/test-$t.log 2>&1; el "$t rc=$? $(grep -E 'PASSED|FAILED' $o/test-$t.log | head -3 | tr '\n' ' ')"; done
  ;;
mside)
  for rep in 1 2 3; do for h in 0 -1; do
    echo "== gpu0 batch sweep, prepare helpers $h, #$rep"
    $mb --experiment batch --devices gpu0 --events 65536 --repeats 3 --mode throughput --prepare-helpers $h 2>&1 | grep -E "^batch|per batch"
  done; done > $o/mside.txt 2>&1; el "gpu0 sweep done"
  for rep in 1 2; do for dev in all cpu; do for batch in 4096 65536; do for h in 0 -1; do
    echo "== $dev batch $batch, prepare helpers $h, #$rep"
    $mb --experiment default --devices $dev --batch $batch --events 131072 --repeats 3 --mode throughput --prepare-helpers $h 2>&1 | grep -E "^default|per batch"
  done; done; done; done >> $o/mside.txt 2>&1; el "all/cpu done"
  ;;
mncu)
  timeout 200 ncu -c 60 --print-summary per-kernel --metrics gpu__time_duration.sum $mb --experiment default --devices gpu0 --batch 4096 --events 16384 --repeats 1 --mode throughput 2>&1 | grep -vE "^==PROF==" | tail -40 > $o/mncu.txt; el "ncu done"
  ;;
mpack)
  cp $out/machine.txt $o/ 2>/dev/null; tar czf $out/m.tgz -C $o . ; el "packed"
  ;;
esac; done
# Appended: prepared events in page-locked memory, copied by the GPU hook straight from their
# columns (issue 16). One binary, --page-locked 1 (default) against 0, and the helpers on and off.
# Phases: pbuild, ptests, pside (then mpack).
for phase in "$@"; do case $phase in
pbuild)
  ( cfg $root $b/new ON && cmake --build $b/new -j $jobs --target matching_bench $mtests stream_window_gpu_tests ) > $o/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $o/build.log | head -20
  ;;
ptests)
  for t in $mtests stream_window_gpu_tests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $o/test-$t.log 2>&1; el "$t rc=$? $(grep -E 'PASSED|FAILED' $o/test-$t.log | head -3 | tr '\n' ' ')"; done
  f=$(find $b/new/tests -name matching_gpu_tests -type f | head -1)
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='MatchingGpu.PageLocked*:Gpu/MatchingConformance.RandomWorkloads*/hook_page_locked:Gpu/MatchingConformance.BatchesOfThousands*/matcher_gpu0' > $o/sanitizer-memcheck.log 2>&1
  el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $o/sanitizer-memcheck.log | head -3 | tr '\n' ' ')"
  ;;
pside)
  for rep in 1 2 3; do for pl in 0 1; do
    echo "== gpu0 batch sweep, page-locked $pl, #$rep"
    $mb --experiment batch --devices gpu0 --events 65536 --repeats 3 --mode throughput --page-locked $pl 2>&1 | grep -E "^batch|per batch"
  done; done > $o/pside.txt 2>&1; el "gpu0 sweep done"
  for rep in 1 2; do for dev in all cpu; do for h in 0 -1; do
    echo "== $dev batch 4096, prepare helpers $h, #$rep"
    $mb --experiment default --devices $dev --batch 4096 --events 131072 --repeats 3 --mode throughput --prepare-helpers $h 2>&1 | grep -E "^default|per batch"
  done; done; done >> $o/pside.txt 2>&1
  for rep in 1 2; do echo "== gpu0 batch 4096, #$rep"; $mb --experiment default --devices gpu0 --batch 4096 --events 131072 --repeats 5 --mode throughput 2>&1 | grep -E "^default|per batch"; done >> $o/pside.txt 2>&1; el "all/cpu done"
  ;;
esac; done
# Appended: the scratch trace of a 4 096-event batch (match2/trace.patch applied to this tree in
# the device's copy, never committed). Phase: mtrace.
for phase in "$@"; do case $phase in
mtrace)
  git apply $root/docs/results/2026-11-28-s22/match2/trace.patch && tb=$b/tr &&
  ( cfg $root $tb OFF && cmake --build $tb -j $jobs --target matching_bench ) > $o/trb.log 2>&1; el "trace build rc=$?"
  for a in "" "" "--prepare-helpers 0" "--page-locked 0"; do echo "== $a"
    $tb/bench/matching/matching_bench --experiment default --devices gpu0 --batch 4096 --events 131072 --repeats 5 --mode throughput $a 2>&1 | grep -E "^default|per batch|trace"
  done > $o/trace.txt 2>&1; el "trace done"
  ;;
esac; done

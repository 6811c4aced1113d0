#!/usr/bin/env bash
# Session 18 on the GPU machine: "all devices" against the best single device (issues 16, 17).
# Phases: build (this tree and the base e59e895 in .bench/, CLI + benches), pipe (sextant pipeline
# on cpu, gpu0, all with --report, old and new), match (matching_bench default scenario on gpu0,
# all and cpu, old and new), tests (scheduler, pipeline and matching GPU suites + compute-sanitizer).
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc); old_src=$root/.bench/base-e59e895
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; } > $out/machine.txt 2>&1
tests="scheduler_tests scheduler_timing_tests pipeline_apps_gpu_tests pipeline_replica_gpu_tests matching_gpu_tests"
for phase in "$@"; do case $phase in
buildnew)  # this tree only
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $jobs --target sextant_cli matching_bench $tests ) > $out/build-new.log 2>&1
  el "new build rc=$?"; grep -E "error|FAILED" $out/build-new.log | head -20
  ;;
build)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $((jobs*5/8)) --target sextant_cli matching_bench $tests ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/old -j $((jobs*3/8)) --target sextant_cli matching_bench ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20; tail -1 $out/build-new.log
  ;;
pipe)  # the applications at scale 4 and 64 (pipeline_bench's inputs), plan auto, old and new interleaved
  for scale in 4 64; do
    for app in synthetic nqueens blast; do
      case $app in
        synthetic) a="--sources $((1048576*scale))";;
        nqueens) a="--n $([ $scale = 4 ] && echo 14 || echo 17)";;
        blast) a="--db-length $((4194304*scale)) --copies $((64*scale))";;
      esac
      for dev in cpu gpu0 all; do for tree in old new; do
        [ $dev != all ] && [ $tree = old ] && continue
        [ -n "${ALL_NEW_ONLY:-}" ] && [ "$dev $tree" != "all new" ] && continue
        for rep in 1 2 3; do
          echo "== $app scale $scale $dev $tree #$rep: $(timeout 120 $b/$tree/apps/sextant pipeline run --app $app $a --devices $dev --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -oE 'run [0-9.]+ s' | tail -1)"
        done
        timeout 120 $b/$tree/apps/sextant pipeline run --app $app $a --devices $dev --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -E "^(numa|gpu|total)"
      done; done
    done
  done > $out/pipe.txt 2>&1; el "pipe done"
  ;;
match)
  for batch in 4096 65536; do for dev in all gpu0; do for tree in old new; do
    [ $dev = gpu0 ] && [ $tree = old ] && continue
    [ -n "${ALL_NEW_ONLY:-}" ] && [ $tree = old ] && continue
    echo "== batch $batch $dev $tree"
    timeout 100 $b/$tree/bench/matching/matching_bench --experiment default --devices $dev --batch $batch --events 131072 --repeats 3 --mode throughput 2>&1 | tail -5 | grep -E "^default|per batch"
  done; done; done > $out/match.txt 2>&1; el "match done"
  ;;
tests)
  for t in $tests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(tail -1 $out/test-$t.log)"; done
  f=$(find $b/new/tests -name pipeline_apps_gpu_tests -type f | head -1)
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='*Synthetic*' > $out/sanitizer-pipeline.log 2>&1; el "compute-sanitizer pipeline rc=$? $(grep -E 'ERROR SUMMARY' $out/sanitizer-pipeline.log | tail -1)"
  ;;
esac; done

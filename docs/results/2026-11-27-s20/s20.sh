#!/usr/bin/env bash
# Session 20 on the GPU machine: the shared pool's per-chunk cost model (issues 16 and 17). "old" is
# e93b56c in .bench/base-e93b56c (the pool rated by items/s), built beside this tree and run
# interleaved with it. Phases: build, pipe, match, tests.
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc); old_src=$root/.bench/base-e93b56c
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; } > $out/machine.txt 2>&1
tests="scheduler_tests scheduler_timing_tests pipeline_apps_gpu_tests matching_gpu_tests"
for phase in "$@"; do case $phase in
build)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $((jobs*5/8)) --target sextant_cli matching_bench $tests ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/old -j $((jobs*3/8)) --target sextant_cli matching_bench ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20; tail -1 $out/build-new.log
  ;;
pipe)  # "run" seconds: gpu0 (new), all old and new interleaved, 3 rounds; then --report of all for both
  for scale in 4 64; do for app in synthetic nqueens blast; do
    case $app in
      synthetic) a="--sources $((1048576*scale))";;
      nqueens) a="--n $([ $scale = 4 ] && echo 14 || echo 17)";;
      blast) a="--db-length $((4194304*scale)) --copies $((64*scale))";;
    esac
    for rep in 1 2 3; do for v in gpu0:new all:old all:new; do
      dev=${v%:*}; tree=${v#*:}
      echo "== $app scale $scale $dev $tree #$rep: $(timeout 120 $b/$tree/apps/sextant pipeline run --app $app $a --devices $dev --merge auto --count-only --output - 2>&1 >/dev/null | grep -oE 'run [0-9.]+ s' | tail -1)"
    done; done
    for tree in old new; do
      echo "== $app scale $scale all $tree --report"
      timeout 120 $b/$tree/apps/sextant pipeline run --app $app $a --devices all --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -E "^(numa|gpu|total)"
    done
  done; done > $out/pipe.txt 2>&1; el "pipe done"
  ;;
match)
  for rep in 1 2; do for batch in 4096 65536; do for v in gpu0:new all:old all:new; do
    dev=${v%:*}; tree=${v#*:}
    echo "== batch $batch $dev $tree #$rep"
    timeout 100 $b/$tree/bench/matching/matching_bench --experiment default --devices $dev --batch $batch --events 131072 --repeats 3 --mode throughput 2>&1 | tail -5 | grep -E "^default|per batch"
  done; done; done > $out/match.txt 2>&1; el "match done"
  ;;
tests)
  for t in $tests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(tail -1 $out/test-$t.log)"; done
  ;;
esac; done
# Appended: the two long pipelines again, more rounds (N-Queens n = 17 and BLAST 256 Mi), and the
# matching series.
for phase in "$@"; do case $phase in
pipe64)
  for rep in 1 2 3 4; do for app in nqueens blast; do
    case $app in nqueens) a="--n 17";; blast) a="--db-length $((4194304*64)) --copies $((64*64))";; esac
    for v in gpu0:new all:old all:new; do
      dev=${v%:*}; tree=${v#*:}
      echo "== $app scale 64 $dev $tree #$rep: $(timeout 120 $b/$tree/apps/sextant pipeline run --app $app $a --devices $dev --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -E 'run [0-9.]+ s|^(numa|gpu)' | sed -E 's/.*(run [0-9.]+ s).*/\1/' | tr -s ' ' | paste -sd'|')"
    done
  done; done > $out/pipe64.txt 2>&1; el "pipe64 done"
  ;;
esac; done
# Appended: the last rule (a fitted GPU's chunk lasts at least an eighth of the run so far), new
# tree only against gpu0 in the same call.
for phase in "$@"; do case $phase in
buildnew)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $jobs --target sextant_cli matching_bench $tests ) > $out/build-new.log 2>&1
  el "new build rc=$?"; grep -E "error|FAILED" $out/build-new.log | head -20
  ;;
last)
  for rep in 1 2 3; do for app in nqueens17 blast64 nqueens14 blast4 synthetic4; do
    case $app in nqueens17) a="--app nqueens --n 17";; nqueens14) a="--app nqueens --n 14";;
      blast64) a="--app blast --db-length $((4194304*64)) --copies $((64*64))";;
      blast4) a="--app blast --db-length $((4194304*4)) --copies $((64*4))";; synthetic4) a="--app synthetic --sources 4194304";; esac
    for dev in gpu0 all; do
      echo "== $app $dev new #$rep: $(timeout 120 $b/new/apps/sextant pipeline run $a --devices $dev --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -E 'run [0-9.]+ s|^(numa|gpu)' | sed -E 's/.*(run [0-9.]+ s).*/\1/' | tr -s ' ' | paste -sd'|')"
    done
  done; done > $out/last.txt 2>&1; el "last done"
  for rep in 1 2; do for batch in 4096 65536; do for dev in gpu0 all; do
    echo "== batch $batch $dev new #$rep"
    timeout 100 $b/new/bench/matching/matching_bench --experiment default --devices $dev --batch $batch --events 131072 --repeats 3 --mode throughput 2>&1 | tail -5 | grep -E "^default|per batch"
  done; done; done > $out/match-last.txt 2>&1; el "match done"
  ;;
esac; done

#!/usr/bin/env bash
# Session 19 on the GPU machine: issue 14's before/after (count windows through the CLI, the
# stream-window series, the skycube grid) against 9725e1a, the tree before the redesign, in
# .bench/base-9725e1a (its phase times printed to 0.1 ms like this tree's: the only change); the
# pipeline's GPU chunk round trip (issue 17); GPU tests and compute-sanitizer.
# Phases: build, count, stream, grid, pipe, tests.
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc); old_src=$root/.bench/base-9725e1a
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; } > $out/machine.txt 2>&1
tests="${TESTS-count_window_cpu_tests count_window_gpu_tests} pipeline_apps_gpu_tests pipeline_replica_gpu_tests"
cli() { "$b/$1/apps/sextant" "${@:2}"; }
for phase in "$@"; do case $phase in
build)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $((jobs*5/8)) --target sextant_cli stream_throughput $tests ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/old -j $((jobs*3/8)) --target sextant_cli stream_throughput ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20; tail -1 $out/build-new.log
  ;;
count)  # sextant window --type count --inplace on the CPU, old and new interleaved, 5 rounds
  for rep in 1 2 3 4 5; do
    for row in "65536 64 16 max" "1048576 64 16 sum" "4194304 64 16 sum" "16777216 64 16 sum" "16777216 1024 64 argmax" \
               "67108864 64 64 min" "67108864 1024 64 argmax" "268435456 1024 1024 max" "268435456 4096 256 sum"; do
      set -- $row
      for tree in old new; do
        s=$(date +%s%N)
        line=$(cli $tree window --type count --inplace --generate $1 --length $2 --slide $3 --agg $4 --device cpu --output /tmp/cw.csv 2>&1 | tail -1)
        e=$(date +%s%N)
        echo "$tree $row #$rep: $(echo "$line" | grep -oE 'algorithm=cpu[^|]*') | $(echo "$line" | grep -oE 'generate [0-9.]+ s, aggregate [0-9.]+ s') | wall $(( (e - s) / 1000 )) us"
      done
    done
  done > $out/count.txt 2>&1; el "count done"
  ;;
stream)  # the stream-window series on gpu0 and the CPU, old and new interleaved, 3 rounds
  for rep in 1 2 3; do for dev in gpu0 cpu; do for tree in old new; do
    echo "== $tree $dev #$rep"
    timeout 120 $b/$tree/bench/window/stream_throughput --device $dev --experiment batch --tuples 4194304 --repeats 3 2>&1 | grep -E '^batch'
  done; done; done > $out/stream.txt 2>&1; el "stream done"
  ;;
grid)  # the skycube grid, old and new interleaved
  for rep in 1 2 3 4 5; do
    for spec in anti:500000:8 indep:500000:12; do for t in stsc mdmc; do for tree in old new; do
      echo "$tree $spec $t #$rep: $(cli $tree skycube --generate $spec --template $t --threads 16 --format binary --output /tmp/sky.bin 2>&1 | grep -oE 'total [0-9.]+ s')"
    done; done; done
  done > $out/grid.txt 2>&1
  for rep in 1 2 3; do for tree in old new; do
    echo "$tree anti:500000:12 mdmc #$rep: $(cli $tree skycube --generate anti:500000:12 --template mdmc --threads 16 --format binary --output /tmp/sky.bin 2>&1 | grep -oE 'total [0-9.]+ s')"
  done; done >> $out/grid.txt 2>&1; el "grid done"
  ;;
pipe)  # the pipelines' GPU chunks after the one-copy round trip (new only; session 18's numbers are the before)
  for scale in 4 64; do for app in synthetic nqueens blast; do
    case $app in
      synthetic) a="--sources $((1048576*scale))";;
      nqueens) a="--n $([ $scale = 4 ] && echo 14 || echo 17)";;
      blast) a="--db-length $((4194304*scale)) --copies $((64*scale))";;
    esac
    for dev in gpu0 all; do
      for rep in 1 2 3; do
        echo "== $app scale $scale $dev #$rep: $(timeout 120 $b/new/apps/sextant pipeline run --app $app $a --devices $dev --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -oE 'run [0-9.]+ s' | tail -1)"
      done
      timeout 120 $b/new/apps/sextant pipeline run --app $app $a --devices $dev --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -E "^(numa|gpu|total)"
    done
  done; done > $out/pipe.txt 2>&1; el "pipe done"
  ;;
tests)
  for t in $tests; do f=$(find $b/new/tests -name $t -type f | head -1); timeout 300 $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(tail -1 $out/test-$t.log)"; done
  for t in pipeline_apps_gpu_tests pipeline_replica_gpu_tests; do
    f=$(find $b/new/tests -name $t -type f | head -1)
    timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $f --gtest_brief=1 --gtest_filter='*Synthetic*:*Replica*:*Error*:*Gain*' > $out/sanitizer-$t.log 2>&1
    el "compute-sanitizer $t rc=$? $(grep -E 'ERROR SUMMARY' $out/sanitizer-$t.log | tail -1)"
  done
  ;;
esac; done
# Appended for the inline threshold experiment (a build whose threshold SEXTANT_X_INLINE overrides).
for phase in "$@"; do case $phase in
buildcli)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/new -j $((jobs*5/8)) --target sextant_cli ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/old -j $((jobs*3/8)) --target sextant_cli ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20
  ;;
inline)  # old; new with the team from 2^20 values; new on the calling thread up to 2^30
  for rep in 1 2 3 4 5 6 7; do
    for n in 1048576 2097152 4194304 8388608 16777216 33554432; do
      for v in old team inline; do
        tree=$([ $v = old ] && echo old || echo new); x=$([ $v = inline ] && echo 1073741824 || echo 1048576)
        s=$(date +%s%N)
        line=$(SEXTANT_X_INLINE=$x cli $tree window --type count --inplace --generate $n --length 64 --slide 16 --agg sum --device cpu --output /tmp/cw.csv 2>&1 | tail -1)
        e=$(date +%s%N)
        echo "$v $n #$rep: $(echo "$line" | grep -oE 'algorithm=cpu[^|]*') | $(echo "$line" | grep -oE 'generate [0-9.]+ s, aggregate [0-9.]+ s') | wall $(( (e - s) / 1000 )) us"
      done
    done
  done > $out/inline.txt 2>&1; el "inline done"
  ;;
esac; done
# Appended: the CPU stream series' small batches, old and new built here (g++ 13) and on dev (g++ 12,
# carried in .bench/bins as st_old and st_new), interleaved.
for phase in "$@"; do case $phase in
buildst)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/new -j $((jobs/2)) --target stream_throughput ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/old -j $((jobs/2)) --target stream_throughput ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20
  ;;
st)
  for rep in 1 2 3 4 5; do
    for v in old new dev-old dev-new; do
      case $v in old|new) bin=$b/$v/bench/window/stream_throughput;; dev-*) bin=$root/.bench/bins/st_${v#dev-};; esac
      echo "== $v #$rep: $($bin --device cpu --experiment batch --tuples 4194304 --repeats 3 --csv /tmp/st.csv 2>&1 | grep -E '^batch +W=1s' | awk '{printf "%s:%s/%s  ", $3, $13, $15}')"
    done
  done > $out/stream-cpu.txt 2>&1; el "st done"
  ;;
esac; done
# Appended: where a GPU pipeline chunk's fixed cost goes (issue 17): the kernel's own duration under
# Nsight Compute against the chunk's time in --report, synthetic pipeline on gpu0, one chunk.
for phase in "$@"; do case $phase in
buildgpu)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/new -j $jobs --target sextant_cli ) > $out/build-new.log 2>&1
  el "new build rc=$?"; grep -E "error|FAILED" $out/build-new.log | head -20
  ;;
chunk)
  for n in 4096 65536 1048576 4194304 16777216; do
    for rep in 1 2 3; do
      echo "== synthetic $n gpu0 #$rep: $($b/new/apps/sextant pipeline run --app synthetic --sources $n --devices gpu0 --merge auto --count-only --report --output - 2>&1 >/dev/null | grep -E '^gpu0' | awk '{print "chunks", $3, "busy", $6, "s"}')"
    done
    echo "== ncu synthetic $n:"
    timeout 120 ncu --log-file /tmp/ncu.txt --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size $b/new/apps/sextant pipeline run --app synthetic --sources $n --devices gpu0 --merge auto --count-only --output /tmp/p.out >/dev/null 2>&1
    grep -E "pipeline_kernel|gpu__time" /tmp/ncu.txt
  done > $out/chunk.txt 2>&1; el "chunk done"
  ;;
esac; done
# Appended: the pipeline build alone (claims cut to the chunk).
for phase in "$@"; do case $phase in
buildpipe)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null &&
    cmake --build $b/new -j $jobs --target sextant_cli pipeline_apps_gpu_tests pipeline_replica_gpu_tests ) > $out/build-new.log 2>&1
  el "new build rc=$?"; grep -E "error|FAILED" $out/build-new.log | head -20
  ;;
esac; done
# Appended: issue 17's bench tables after the claims change (scale 4 as in session 10).
for phase in "$@"; do case $phase in
bench17)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/new -j $jobs --target pipeline_bench ) > $out/build-bench.log 2>&1
  el "bench build rc=$?"; grep -E "error|FAILED" $out/build-bench.log | head -20
  for e in merge fused devices sizing; do
    timeout 300 $b/new/bench/pipeline/pipeline_bench --experiment $e --device gpu0 --scale 4 --repeats 3 --csv $out/pipe-$e-gpu.csv > $out/pipe-$e-gpu.txt 2>&1
    el "$e rc=$?"
  done
  ;;
esac; done
# Appended: the sizing series alone (its files did not come back beside the others).
for phase in "$@"; do case $phase in
sizing17)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
    cmake --build $b/new -j $jobs --target pipeline_bench ) > /tmp/build-bench.log 2>&1
  el "bench build rc=$?"; grep -E "error|FAILED" /tmp/build-bench.log | head -20
  timeout 300 $b/new/bench/pipeline/pipeline_bench --experiment sizing --device gpu0 --scale 4 --repeats 3 --csv $out/pipe-sizing-gpu.csv > $out/pipe-sizing-gpu.txt 2>&1
  el "sizing rc=$?"
  ;;
esac; done

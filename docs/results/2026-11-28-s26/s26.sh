#!/usr/bin/env bash
# Session 26 on the GPU machine (nvidia-h200). Phases:
#   build   the CLI and the test binaries with CUDA (/tmp/f) on a copy of the tree with
#           scratch-ab.patch (never committed): SX_NO_AHEAD=1 generates every batch between pushes
#           as before, SX_TUPLES=1 generates 32-byte tuples and then projects them as before
#   tests   stream_datagen_tests, stream_window_cli_tests (CpuAndGpuAgree on the GPU),
#           stream_window_gpu_tests
#   sanit   compute-sanitizer memcheck on a generated run of 4 batches on gpu0
#   gen     issue 18's `window --generate 200000000` on gpu0 and cpu, each variant of the scratch
#           switches, three interleaved rounds (first call, at 27ca6c7: the CPU's auto batch was
#           still 131072 tuples)
#   trace   (second call, CPU-only build in /tmp/c with scratch-trace.patch too: time per push in
#           the pane stage's push and release and in the window stage's advance)
#   bw      host memory bandwidth (membw.cpp, 15 and 16 threads) and page-locked H2D copies (h2d.cu)
#   gen2    (third call, the CPU's auto batch now 2^17 per thread) the same runs, three rounds
#   keys-build (fourth call) CPU-only sextant and stream_throughput of f65d8b0 (.bench/s26/old.tar.gz,
#           `git archive f65d8b0`) and of this tree, both with scratch-trace.patch
#   dense   (fifth call, keys-build again with old = b57b2a0 and new = the dense gather in chunks)
#           stream_throughput --experiment keys on 16 threads at 2^17- and 2^21-tuple pushes
#   keys    many keys on 16 threads: the command line at 1 000 and 10 000 keys, old and new
#           interleaved, three rounds; stream_throughput --experiment keys with 2^21-tuple batches
set -uo pipefail
phases="$*"
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; f=/tmp/f; src=/tmp/src
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
for phase in $phases; do case $phase in
build)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git -C $root log -1 --format=%H; } > $out/machine.txt 2>&1
  rm -rf $src && cp -r $root $src && (cd $src && patch -p1 < docs/results/2026-11-28-s26/scratch-ab.patch) > $out/build.log 2>&1
  ( cmake -S $src -B $f -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null && timeout 480 cmake --build $f -j $jobs --target sextant_cli stream_window_cli_tests stream_datagen_tests stream_window_gpu_tests ) >> $out/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build.log | head -20; tail -1 $out/build.log
  ;;
tests)
  for t in datagen/stream_datagen_tests apps/stream_window_cli_tests window/stream_window_gpu_tests; do
    timeout 300 $f/tests/$t --gtest_brief=1 > /tmp/t.log 2>&1; rc=$?; cat /tmp/t.log >> $out/tests.log
    el "$t rc=$rc $(grep -E 'PASSED|FAILED|SKIPPED' /tmp/t.log | head -3 | tr '\n' ' ')"
  done
  ;;
sanit)
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f/apps/sextant window --generate 200000 --keys 100 \
    --zipf 0.9 --rate 4 --delay 50 --delay-dist exp --watermark-bound 100 --type time --length 1000,300 --slide 100 \
    --lateness 20 --agg sum --batch 65537 --device gpu0 --output /tmp/s.csv > $out/memcheck.log 2>&1
  el "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $out/memcheck.log)"
  $f/apps/sextant window --generate 200000 --keys 100 --zipf 0.9 --rate 4 --delay 50 --delay-dist exp \
    --watermark-bound 100 --type time --length 1000,300 --slide 100 --lateness 20 --agg sum --batch 65537 \
    --device cpu --output /tmp/c.csv 2>/dev/null; cmp /tmp/s.csv /tmp/c.csv && el "sanitized gpu0 output = cpu output"
  ;;
gen)
  run() { echo "== $1"; shift; env "$@" 2>&1 | grep -o "cpu:.*\|gpu0:.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'; }
  args="window --generate 200000000 --type time --length 1000000 --slide 10000 --agg sum --order fire --output /tmp/w200.csv"
  for rep in 1 2 3; do
    run "gpu0 #$rep" $f/apps/sextant $args --device gpu0
    run "gpu0 --threads 16 #$rep" $f/apps/sextant $args --device gpu0 --threads 16
    run "gpu0 SX_NO_AHEAD #$rep" SX_NO_AHEAD=1 $f/apps/sextant $args --device gpu0
    run "gpu0 SX_NO_AHEAD SX_TUPLES #$rep" SX_NO_AHEAD=1 SX_TUPLES=1 $f/apps/sextant $args --device gpu0
    run "cpu #$rep" $f/apps/sextant $args --device cpu
    run "cpu SX_TUPLES #$rep" SX_TUPLES=1 $f/apps/sextant $args --device cpu
  done > $out/gen200.txt 2>&1; el "gen done"; cat $out/gen200.txt
  ;;
trace)
  root=$(pwd); rm -rf /tmp/src && cp -r $root /tmp/src && cd /tmp/src && patch -p1 < docs/results/2026-11-28-s26/scratch-ab.patch && patch -p1 < docs/results/2026-11-28-s26/scratch-trace.patch && cd $root
  cmake -S /tmp/src -B /tmp/c -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null && cmake --build /tmp/c -j16 --target sextant_cli | tail -1
  a="window --generate 100000000 --type time --length 1000000 --slide 10000 --agg sum --order fire --output /tmp/w200.csv --device cpu"
  for o in "--threads 16" "--threads 16 --batch 1048576" "--threads 16 --batch 4194304" "--threads 8" "--threads 4" "--threads 2" "--threads 1" "--threads 16 --delay 1000" "--threads 16 --keys 1000 --batch 1048576"; do
    echo "== $o"; /tmp/c/apps/sextant $a $o 2>&1 | grep -o "TRACE.*\|throughput.*total [0-9.]* s"
  done
  ;;
bw)
  d=docs/results/2026-11-28-s26
  g++ -O3 -march=native -fopenmp $d/membw.cpp -o /tmp/membw && nvcc -O2 $d/h2d.cu -o /tmp/h2d
  { /tmp/membw 15; /tmp/membw 16; /tmp/h2d; } > $out/bw.txt 2>&1; cat $out/bw.txt
  ;;
gen2)
  run() { echo "== $1"; shift; env "$@" 2>&1 | grep -o "cpu:.*\|gpu0:.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'; }
  args="window --generate 200000000 --type time --length 1000000 --slide 10000 --agg sum --order fire --output /tmp/w200.csv"
  for rep in 1 2 3; do
    run "gpu0 #$rep" $f/apps/sextant $args --device gpu0
    run "gpu0 SX_NO_AHEAD #$rep" SX_NO_AHEAD=1 $f/apps/sextant $args --device gpu0
    run "cpu #$rep" $f/apps/sextant $args --device cpu
    run "cpu --batch 131072 #$rep" $f/apps/sextant $args --device cpu --batch 131072
    run "cpu --batch 4194304 #$rep" $f/apps/sextant $args --device cpu --batch 4194304
  done > $out/gen200-2.txt 2>&1; el "gen2 done"; cat $out/gen200-2.txt
  ;;
keys-build)
  rm -rf /tmp/oldsrc /tmp/newsrc && mkdir -p /tmp/oldsrc && tar xzf $root/.bench/s26/old.tar.gz -C /tmp/oldsrc && cp -r $root /tmp/newsrc
  for t in old new; do
    ( cd /tmp/${t}src && patch -p1 < $root/docs/results/2026-11-28-s26/scratch-trace.patch > /dev/null &&
      cmake -S /tmp/${t}src -B /tmp/k-$t -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
      timeout 400 cmake --build /tmp/k-$t -j 8 --target sextant_cli stream_throughput > /tmp/k-$t.log 2>&1; el "$t build rc=$?" ) &
  done; wait
  ;;
keys)
  a="window --generate 67108864 --rate 10 --type time --length 1000000 --slide 10000 --agg sum --order fire --output /tmp/wk.csv"
  for rep in 1 2 3; do for k in 1000 10000; do for t in old new; do
    echo "== $t keys $k threads 16 #$rep"; /tmp/k-$t/apps/sextant $a --keys $k 2>&1 | grep -o "cpu:.*\|TRACE.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'
  done; done; done > $out/keys-cli.txt 2>&1; el "keys cli done"; cat $out/keys-cli.txt
  for t in old new; do echo "== $t"; /tmp/k-$t/bench/window/stream_throughput --experiment keys --tuples 33554432 --repeats 1 --threads 16 --batch 65536 --csv /tmp/k.csv 2>&1 | grep -v TRACE; done > $out/keys-bench.txt 2>&1; el "keys bench done"; cat $out/keys-bench.txt
  ;;
dense)
  for b in 4096 65536; do for t in old new; do echo "== $t batch ${b} KiB of tuples"
    /tmp/k-$t/bench/window/stream_throughput --experiment keys --tuples 16777216 --repeats 1 --threads 16 --batch $b --csv /tmp/k.csv 2>&1 | grep -v TRACE | grep "^keys"
  done; done > $out/dense.txt 2>&1; el "dense done"; cat $out/dense.txt
  ;;
esac; done

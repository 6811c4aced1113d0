#!/usr/bin/env bash
# Session 28 on the GPU machine (nvidia-h200): result columns that a resize does not zero-fill
# (ColumnVector, issue 18). Phases:
#   build    the CLI, stream_throughput and the window test binaries with CUDA (/tmp/f)
#   tests    stream_window_gpu_tests, count_window_gpu_tests, stream_window_api_gpu_tests,
#            stream_window_cli_tests (CpuAndGpuAgree among them), then the CPU suites the change
#            touches: core_tests, count_window_cpu_tests, stream_window_cpu_tests,
#            stream_window_gpu_emulation_tests, stream_window_api_tests
#   sanit    compute-sanitizer memcheck on a generated run of 4 batches on gpu0 (sum, argmax), and
#            its output against the CPU's
#   ab-build CPU-only sextant and stream_throughput of the session's base (.bench/s28/old.tar.gz,
#            `git archive 05288ab`) and of this tree
#   ab       old and new interleaved, three rounds: stream_throughput --experiment keys on 16 threads
#            (2^21-tuple pushes) and on one (10^4 and 10^5 keys), and the command line at 10^5 keys
#            on 16 threads
#   trace    CPU-only build of this tree with scratch-trace.patch (never committed; session 27's):
#            per push the pane stage's push and release and the window stage's advance, per
#            parallel advance its threads, the resize of the operator's columns and the copy; the
#            command line at 10^4 and 10^5 keys on 16 threads, to a file and to stdout (> /dev/null)
#   trace2   the same with scratch-trace2.patch (never committed): also per push, and in the dense
#            window stage the time before, in and after its threads; 10^5 keys to stdout
#   ab2      (after the trace) the base b99e34e (.bench/s28/base.tar.gz) against this tree, which lays
#            out and clears the dense layout's big tables on the stage's threads: CPU-only CLIs,
#            three interleaved rounds of window --generate 33554432 at 10^4 and 10^5 keys on 16
#            threads, results to stdout (> /dev/null)
#   disk     what the output file costs: dd of 1.2 GB (the 10^5-key run's CSV) to /tmp, with fsync
set -uo pipefail
phases="$*"
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; f=/tmp/f
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
for phase in $phases; do case $phase in
build)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git -C $root log -1 --format=%H; } > $out/machine.txt 2>&1
  ( cmake -S $root -B $f -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null && timeout 540 cmake --build $f -j $jobs --target sextant_cli stream_window_cli_tests stream_window_gpu_tests stream_window_api_gpu_tests count_window_gpu_tests stream_throughput core_tests count_window_cpu_tests stream_window_cpu_tests stream_window_gpu_emulation_tests stream_window_api_tests -- -k 0 ) > $out/build.log 2>&1
  el "build rc=$?"; grep -E "error:|FAILED" $out/build.log | cut -c1-300 | head -20; tail -1 $out/build.log
  ;;
tests)
  for t in window/stream_window_gpu_tests window/count_window_gpu_tests api/stream_window_api_gpu_tests apps/stream_window_cli_tests core/core_tests window/count_window_cpu_tests window/stream_window_cpu_tests window/stream_window_gpu_emulation_tests api/stream_window_api_tests; do
    timeout 300 $f/tests/$t --gtest_brief=1 > /tmp/t.log 2>&1; rc=$?; cat /tmp/t.log >> $out/tests.log
    el "$t rc=$rc $(grep -E 'PASSED|FAILED|SKIPPED' /tmp/t.log | head -3 | tr '\n' ' ')"
  done
  ;;
sanit)
  a="window --generate 200000 --keys 100 --zipf 0.9 --rate 4 --delay 50 --delay-dist exp --watermark-bound 100 --type time --length 1000,300 --slide 100 --lateness 20 --batch 65537"
  for agg in sum argmax; do
    timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $f/apps/sextant $a --agg $agg --device gpu0 --output /tmp/s.csv > $out/memcheck-$agg.log 2>&1
    el "memcheck $agg rc=$? $(grep -E 'ERROR SUMMARY' $out/memcheck-$agg.log)"
    $f/apps/sextant $a --agg $agg --device cpu --output /tmp/c.csv 2>/dev/null; cmp /tmp/s.csv /tmp/c.csv && el "$agg: sanitized gpu0 output = cpu output ($(wc -l < /tmp/c.csv) lines)"
  done
  ;;
ab-build)
  rm -rf /tmp/oldsrc && mkdir -p /tmp/oldsrc && tar xzf $root/.bench/s28/old.tar.gz -C /tmp/oldsrc
  for t in old new; do
    s=/tmp/oldsrc; [ $t = new ] && s=$root
    ( cmake -S $s -B /tmp/k-$t -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
      timeout 400 cmake --build /tmp/k-$t -j 8 --target sextant_cli stream_throughput > /tmp/k-$t.log 2>&1; el "$t build rc=$?" ) &
  done; wait
  ;;
ab)
  st() { /tmp/k-$1/bench/window/stream_throughput --csv /tmp/k.csv --repeats 1 "${@:2}" 2>&1 | grep -E "^(keys|fine) "; }
  for rep in 1 2 3; do for t in old new; do
    echo "== $t keys threads 16 batch 2^21 #$rep"; st $t --experiment keys --tuples 16777216 --threads 16 --batch 65536
  done; done > $out/ab-keys16.txt 2>&1; el "keys16 done"; cat $out/ab-keys16.txt
  for rep in 1 2 3; do for t in old new; do
    echo "== $t keys threads 1 #$rep"; st $t --experiment keys --tuples 8388608 --threads 1 | grep -E " (10000|100000) "
  done; done > $out/ab-one.txt 2>&1; el "one-thread done"; cat $out/ab-one.txt
  a="window --generate 33554432 --rate 10 --keys 100000 --type time --length 1000000 --slide 10000 --agg sum --order fire --output /tmp/wk.csv"
  for rep in 1 2 3; do for t in old new; do
    echo "== $t cli keys 100000 threads 16 #$rep"; /tmp/k-$t/apps/sextant $a 2>&1 | grep -o "cpu:.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'
  done; done > $out/ab-cli.txt 2>&1; el "cli done"; cat $out/ab-cli.txt
  ;;
trace)
  rm -rf /tmp/trsrc && cp -r $root /tmp/trsrc && (cd /tmp/trsrc && patch -p1 < docs/results/2026-11-29-s28/scratch-trace.patch > /dev/null)
  cmake -S /tmp/trsrc -B /tmp/tr -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null && timeout 400 cmake --build /tmp/tr -j $jobs --target sextant_cli > /tmp/tr.log 2>&1; el "trace build rc=$?"
  a="window --generate 33554432 --rate 10 --type time --length 1000000 --slide 10000 --agg sum --order fire --output /tmp/wk.csv"
  for rep in 1 2; do for k in 10000 100000; do
    echo "== keys $k threads 16 #$rep"; /tmp/tr/apps/sextant $a --keys $k 2>&1 | grep -o "cpu:.*\|TRACE.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'
  done; done > $out/trace.txt 2>&1
  for rep in 1 2; do
    echo "== keys 100000 threads 16 stdout #$rep"; /tmp/tr/apps/sextant ${a/--output \/tmp\/wk.csv/--output -} --keys 100000 2>&1 >/dev/null | grep -o "cpu:.*\|TRACE.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'
  done >> $out/trace.txt 2>&1; el "trace done"; cat $out/trace.txt
  ;;
trace2)
  rm -rf /tmp/trsrc2 && cp -r $root /tmp/trsrc2 && (cd /tmp/trsrc2 && patch -p1 < docs/results/2026-11-29-s28/scratch-trace2.patch > /dev/null)
  cmake -S /tmp/trsrc2 -B /tmp/tr2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null && timeout 400 cmake --build /tmp/tr2 -j $jobs --target sextant_cli > /tmp/tr2.log 2>&1; el "trace2 build rc=$?"
  a="window --generate 33554432 --rate 10 --type time --length 1000000 --slide 10000 --agg sum --order fire --output -"
  for rep in 1 2; do
    echo "== keys 100000 threads 16 stdout #$rep"; /tmp/tr2/apps/sextant $a --keys 100000 2>&1 >/dev/null | grep -o "cpu:.*\|TRACE.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'
  done > $out/trace2.txt 2>&1; el "trace2 done"; cat $out/trace2.txt
  ;;
ab2)
  rm -rf /tmp/basesrc && mkdir -p /tmp/basesrc && tar xzf $root/.bench/s28/base.tar.gz -C /tmp/basesrc
  for t in base new; do
    s=/tmp/basesrc; [ $t = new ] && s=$root
    ( cmake -S $s -B /tmp/c-$t -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF >/dev/null &&
      timeout 300 cmake --build /tmp/c-$t -j 8 --target sextant_cli > /tmp/c-$t.log 2>&1; el "$t build rc=$?" ) &
  done; wait
  a="window --generate 33554432 --rate 10 --type time --length 1000000 --slide 10000 --agg sum --order fire --output -"
  for rep in 1 2 3; do for k in 10000 100000; do for t in base new; do
    echo "== $t keys $k threads 16 stdout #$rep"; /tmp/c-$t/apps/sextant $a --keys $k 2>&1 >/dev/null | grep -o "cpu:.*" | sed 's/ | tuples_in.*windows_emitted=[0-9]* | / | /'
  done; done; done > $out/ab2.txt 2>&1; el "ab2 done"; cat $out/ab2.txt
  ;;
disk)
  for rep in 1 2; do
    dd if=/dev/zero of=/tmp/ddtest bs=1M count=1200 conv=fsync 2>&1 | tail -1; rm -f /tmp/ddtest
    dd if=/dev/zero of=/tmp/ddtest bs=1M count=1200 2>&1 | tail -1; rm -f /tmp/ddtest
  done > $out/disk.txt 2>&1; df -h /tmp >> $out/disk.txt; cat $out/disk.txt
  ;;
esac; done

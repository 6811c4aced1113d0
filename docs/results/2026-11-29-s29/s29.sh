#!/bin/bash
# Session 29 (issue 18): the CPU stream operator at 10^4 and 10^5 keys, run from the repository
# root on the h200 host (bash docs/results/2026-11-29-s29/s29.sh PHASE; output under $OUT).
#   thp      transparent huge pages on this host, and one 480 MiB first touch with and without
#            them (thp.cpp)
#   bw       memory bandwidth: read, write and copy with 1, 4, 8, 16 threads (bw.cpp)
#   trace    a scratch-trace patch (never committed) on a copy of the tree: phase times of
#            the pane and window stages per push; PATCH=scratch-trace-final.patch (default),
#            scratch-trace-partition.patch or scratch-trace-base.patch, each on the tree it
#            was cut from (final: 38e980e; partition: the combine split alone; base: 9435d2f)
#   build    base (BASE=tar.gz of `git archive 9435d2f`, with this tree's stream_throughput.cpp
#            for --keys) and this tree, CPU-only, stream_throughput and the CLI, side by side
#   ab       three interleaved rounds of stream_throughput --experiment keys, base and new
#   cli      three interleaved rounds of `sextant window --generate 33554432` at 10^5, 10^4 keys
root=$(pwd); here=$root/docs/results/2026-11-29-s29; out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
case "$1" in
thp)
  { cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
    grep -i huge /proc/meminfo; lscpu | grep -E "Model name|Socket|NUMA|L2|L3|^CPU\(s\)"
    g++ -O2 -std=c++20 $here/thp.cpp -o /tmp/thp && /tmp/thp; } > $out/thp.txt 2>&1; cat $out/thp.txt ;;
bw)
  g++ -O2 -fopenmp -march=native $here/bw.cpp -o /tmp/bw && for t in 1 4 8 16; do /tmp/bw $t; done > $out/bw.txt 2>&1
  cat $out/bw.txt ;;
trace)
  patch=${PATCH:-scratch-trace-final.patch}
  rm -rf /tmp/trsrc && mkdir -p /tmp/trsrc && tar -c --exclude=./.git . | tar -x -C /tmp/trsrc
  (cd /tmp/trsrc && patch -p1 < $here/$patch > /dev/null) || exit 1
  cmake -S /tmp/trsrc -B /tmp/trb -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF \
    -DSEXTANT_BUILD_TESTS=OFF > /dev/null && timeout 400 cmake --build /tmp/trb -j 16 --target stream_throughput > /tmp/trb.log 2>&1
  el "build rc=$?"
  for k in 100000 10000; do for t in 16 1; do
    [ $k = 10000 ] && [ $t != 16 ] && continue
    echo "== keys $k threads $t"
    /tmp/trb/bench/window/stream_throughput --experiment keys --keys $k --tuples 33554432 --threads $t --batch 65536 \
      --repeats 1 --csv /tmp/st.csv 2>&1 | grep -E "uniform|zipf|PHASE|TRACE1"
  done; done > $out/trace.txt 2>&1; cat $out/trace.txt ;;
build)
  rm -rf /tmp/base-src /tmp/new-src && mkdir -p /tmp/base-src /tmp/new-src
  tar -xzf ${BASE:?tar.gz of git archive 9435d2f} -C /tmp/base-src && cp bench/window/stream_throughput.cpp /tmp/base-src/bench/window/
  tar -c --exclude=./.git . | tar -x -C /tmp/new-src
  for v in base new; do
    ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null &&
      timeout 500 cmake --build /tmp/$v-b -j 8 --target stream_throughput sextant_cli > /tmp/$v-b.log 2>&1; echo "$v build rc=$?" ) &
  done; wait ;;
ab)
  for r in 1 2 3; do for k in 100000 10000; do for t in 16 1; do
    [ $k = 10000 ] && [ $t = 1 ] && continue
    for v in base new; do
      echo "== round $r keys $k threads $t $v"
      /tmp/$v-b/bench/window/stream_throughput --experiment keys --keys $k --tuples 33554432 --threads $t --batch 65536 \
        --repeats 1 --csv /tmp/st.csv 2>&1 | grep -E "uniform|zipf"
    done; done; done; done > $out/ab.txt 2>&1; cat $out/ab.txt ;;
cli)
  for r in 1 2 3; do for k in 100000 10000; do for v in base new; do
    echo "== round $r keys $k $v"
    /tmp/$v-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 \
      --agg sum --order fire --output - 2>&1 > /dev/null | tail -1
  done; done; done > $out/cli.txt 2>&1; cat $out/cli.txt ;;
esac

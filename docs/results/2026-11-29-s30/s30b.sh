#!/bin/bash
# Session 30 scratch, second A/B: head (4023725: load cut + direct writes) / new (+ reserve for one thread, the room guard).
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
st() { /tmp/$1-b/bench/window/stream_throughput --experiment keys --keys $2 --tuples 33554432 --threads $3 --batch 65536 --repeats 1 --csv /tmp/st.csv 2>&1 | grep -E "uniform|zipf"; }
case "$1" in
build)
  rm -rf /tmp/head-src && mkdir -p /tmp/head-src && tar -xzf .bench/s30/head.tar.gz -C /tmp/head-src
  rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
  for v in head new; do
    tests=OFF; tg="stream_throughput sextant_cli"; [ $v = new ] && tests=ON && tg="$tg stream_window_cpu_tests"
    ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 550 cmake --build /tmp/$v-b -j 8 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -2 /tmp/$v-b.log ) &
  done; wait; el "builds done"
  /tmp/new-b/tests/window/stream_window_cpu_tests --gtest_brief=1 2>&1 | tail -3 > $out/tests-b.txt; cat $out/tests-b.txt
  ;;
ab)
  g++ -O2 -fopenmp -march=native docs/results/2026-11-29-s29/bw.cpp -o /tmp/bw && for t in 1 16; do /tmp/bw $t; done > $out/bw-b.txt 2>&1
  for r in 1 2 3 4 5; do for kt in "100000 1" "100000 16" "10000 16"; do
    set -- $kt
    for v in head new; do echo "== round $r keys $1 threads $2 $v"; st $v $1 $2; done
  done; done > $out/ab-b.txt 2>&1
  for t in 1 16; do /tmp/bw $t; done >> $out/bw-b.txt 2>&1; el "ab done"; cat $out/bw-b.txt
  ;;
cli)
  for r in 1 2 3; do for k in 100000; do for v in head new; do
    echo "== round $r keys $k $v"
    /tmp/$v-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 --agg sum --order fire --output - 2>&1 >/dev/null | tail -1
  done; done; done > $out/cli-b.txt 2>&1; el "cli done"; cat $out/cli-b.txt
  ;;
esac

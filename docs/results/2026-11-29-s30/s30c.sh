#!/bin/bash
# Session 30 scratch, third A/B: head2 (e5d9f47) / new (+ buffers for windows past the last pane with a tuple).
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
st() { /tmp/$1-b/bench/window/stream_throughput --experiment keys --keys $2 --tuples 33554432 --threads $3 --batch 65536 --repeats 1 --csv /tmp/st.csv 2>&1 | grep -E "uniform|zipf"; }
rm -rf /tmp/head2-src && mkdir -p /tmp/head2-src && tar -xzf .bench/s30/head2.tar.gz -C /tmp/head2-src
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
for v in head2 new; do
  tests=OFF; tg="stream_throughput"; [ $v = new ] && tests=ON && tg="$tg stream_window_cpu_tests"
  ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 400 cmake --build /tmp/$v-b -j 8 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -1 /tmp/$v-b.log ) &
done; wait; el "builds done"
/tmp/new-b/tests/window/stream_window_cpu_tests --gtest_brief=1 2>&1 | tail -3 > $out/tests-c.txt; cat $out/tests-c.txt
for r in 1 2 3 4 5; do for kt in "100000 16" "10000 16"; do set -- $kt
  for v in head2 new; do echo "== round $r keys $1 threads $2 $v"; st $v $1 $2; done
done; done > $out/ab-c.txt 2>&1; el "ab done"

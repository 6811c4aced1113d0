#!/bin/bash
# Session 33 scratch: KeyIndex refilled in a table sized up front. old = 4d22dd0, new = the tree.
out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
T=""; command -v /usr/bin/time >/dev/null && T="/usr/bin/time -f maxrss_kb=%M"
rm -rf /tmp/old-src && mkdir -p /tmp/old-src && tar -xzf .bench/s33/old.tar.gz -C /tmp/old-src
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
for v in old new; do
  tests=OFF; tg="sextant_cli"; [ $v = new ] && tests=ON && tg="$tg stream_window_cpu_tests"
  ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 400 cmake --build /tmp/$v-b -j 8 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -1 /tmp/$v-b.log ) &
done; wait; el "builds done"
/tmp/new-b/tests/window/stream_window_cpu_tests --gtest_brief=1 2>&1 | tail -3 > $out/tests-keyindex.txt; cat $out/tests-keyindex.txt; el "tests done"
run() { echo "== $*"; $T timeout 100 /tmp/$1-b/apps/sextant window "${@:2}" --type time --slide 10000 --agg sum --output - 2>&1 >/dev/null | tail -2; }
for r in 1 2 3; do for v in old new; do
  run $v --generate 33554432 --rate 10 --keys 1000000 --length 1000000 --order fire
  run $v --generate 33554432 --rate 10 --keys 1000000 --length 1000000
done; el "round $r" >&2; done > $out/keyindex-ab.txt 2>&1
for v in old new; do
  run $v --generate 1500000 --rate 1 --keys 4000000 --length 1000000 --order fire --window-stage scan
  run $v --generate 1500000 --rate 1 --keys 4000000 --length 1000000 --order fire
  run $v --generate 4000000 --rate 10 --keys 100000000 --length 1000000 --order fire
done > $out/keyindex-many.txt 2>&1; el "done"

#!/bin/bash
# Session 37 scratch: the dense layout without tuple counts. old = .bench/s37/$OLD.tar.gz (old: 59b7520, step1: 2187cbf), new = the tree.
# s37.sh build; s37.sh tests; s37.sh ab   (ROUNDS, THREADS)
out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
for step in "$@"; do
if [ $step = build ]; then
  nproc; lscpu | grep -E "Model name|L2|L3|NUMA node0"; cat /sys/kernel/mm/transparent_hugepage/enabled
  rm -rf /tmp/old-src && mkdir -p /tmp/old-src && tar -xzf .bench/s37/${OLD:-old}.tar.gz -C /tmp/old-src
  rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
  for v in old new; do
    tests=OFF; tg="stream_throughput"; [ $v = new ] && tests=ON && tg="$tg stream_window_cpu_tests stream_window_api_tests"
    ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 450 cmake --build /tmp/$v-b -j 8 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -1 /tmp/$v-b.log ) &
  done; wait; el "builds done"
fi
if [ $step = tests ]; then
  (/tmp/new-b/tests/window/stream_window_cpu_tests --gtest_brief=1 2>&1 | tail -3; /tmp/new-b/tests/api/stream_window_api_tests --gtest_brief=1 2>&1 | tail -2) > $out/tests.txt; cat $out/tests.txt; el "tests done"
fi
if [ $step = ab ]; then
  for r in $(seq ${ROUNDS:-3}); do for t in ${THREADS:-16 1}; do for v in old new; do
    echo "== round $r threads $t $v"
    n=33554432; [ $t = 1 ] && n=16777216
    timeout 120 /tmp/$v-b/bench/window/stream_throughput --experiment keys --keys 100000 --tuples $n --threads $t --batch 65536 --repeats 3 --csv /tmp/ab-$v.csv 2>&1 | grep -E "^keys"
  done; done; el "round $r" >&2; done > $out/ab.txt 2>&1; el "ab done"; cat $out/ab.txt
fi
if [ $step = buildnew ]; then
  rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
  cmake -S /tmp/new-src -B /tmp/new-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null && timeout 450 cmake --build /tmp/new-b -j 16 --target stream_throughput > /tmp/new-b.log 2>&1; echo "new build rc=$?"; el "build done"
fi
if [ $step = len ]; then
  # the stream's length: first touches and the trailing windows at finish weigh less on a longer stream
  for r in $(seq ${ROUNDS:-2}); do for tn in 16:33554432 16:67108864 16:134217728 1:16777216 1:33554432 1:67108864; do
    t=${tn%%:*}; n=${tn##*:}; echo "== round $r threads $t tuples $n"
    timeout 150 /tmp/new-b/bench/window/stream_throughput --experiment keys --keys 100000 --tuples $n --threads $t --batch 65536 --repeats 3 --csv /tmp/len.csv 2>&1 | grep -E "^keys"
  done; el "round $r" >&2; done > $out/len.txt 2>&1; el "len done"; cat $out/len.txt
fi
done
if [ "$1" = longab ]; then
  rm -rf /tmp/old-src && mkdir -p /tmp/old-src && tar -xzf .bench/s37/old.tar.gz -C /tmp/old-src
  cmake -S /tmp/old-src -B /tmp/old-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null && timeout 300 cmake --build /tmp/old-b -j 16 --target stream_throughput > /tmp/old-b.log 2>&1; echo "old build rc=$?"; el "build done"
  for r in 1 2; do for tn in 16:134217728 1:67108864 1:134217728; do for v in old new; do
    t=${tn%%:*}; n=${tn##*:}; echo "== round $r threads $t tuples $n $v"
    timeout 150 /tmp/$v-b/bench/window/stream_throughput --experiment keys --keys 100000 --tuples $n --threads $t --batch 65536 --repeats 3 --csv /tmp/len.csv 2>&1 | grep -E "^keys"
  done; done; el "round $r" >&2; done > $out/longab.txt 2>&1; el "longab done"; cat $out/longab.txt
fi

#!/bin/bash
# Session 31 scratch. Run 1: head (6b8df71) / tup (compact tuples) / new (tup + huge pages). Run 2 (B=2): thp (run 1 new) / new (+ one scan block).
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
st() { /tmp/$1-b/bench/window/stream_throughput --experiment keys --keys $2 --tuples 33554432 --threads $3 --batch 65536 --repeats 1 --csv /tmp/st.csv 2>&1 | grep -E "uniform|zipf"; }
if [ "$1" = build ]; then
for v in ${OLD:-head tup}; do rm -rf /tmp/$v-src && mkdir -p /tmp/$v-src && tar -xzf .bench/s31/$v.tar.gz -C /tmp/$v-src; done
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag > $out/thp.txt
for v in ${OLD:-head tup} new; do
  tests=OFF; tg="stream_throughput sextant_cli"; [ $v = new ] && tests=ON && tg="$tg stream_window_cpu_tests stream_window_cli_tests"
  ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 450 cmake --build /tmp/$v-b -j 6 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -1 /tmp/$v-b.log ) &
done; wait; el "builds done"
g++ -O2 -fopenmp -march=native docs/results/2026-11-29-s29/bw.cpp -o /tmp/bw && for t in 1 16; do /tmp/bw $t; done > $out/bw.txt 2>&1; cat $out/bw.txt
(/tmp/new-b/tests/window/stream_window_cpu_tests --gtest_brief=1 2>&1 | tail -3; /tmp/new-b/tests/apps/stream_window_cli_tests --gtest_brief=1 2>&1 | tail -4) > $out/tests.txt; cat $out/tests.txt; el "tests done"
exit 0; fi
for r in $(seq ${ROUNDS:-5}); do for kt in ${POINTS:-100000:16 10000:16 100000:1}; do set -- ${kt/:/ }
  for v in ${OLD:-head tup} new; do echo "== round $r keys $1 threads $2 $v"; st $v $1 $2; done
done; el "round $r" >&2; done > $out/ab${B}.txt 2>&1; el "ab done"
for t in 1 16; do /tmp/bw $t; done > $out/bw-end.txt 2>&1; cat $out/bw-end.txt
if [ "$CLI" = 1 ]; then for r in $(seq ${CLIR:-3}); do for k in 100000 10000; do for v in ${OLD:-head tup} new; do
  echo "== round $r keys $k $v"
  /tmp/$v-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 --agg sum --order fire --output - 2>&1 >/dev/null | tail -1
done; done; done > $out/cli${B}.txt 2>&1; el "cli done"; fi

#!/bin/bash
# Session 33 scratch: the dense rule by cells per pane. Old (7a86fb4) against new; tests; the grid's auto stage again.
out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
T=""; command -v /usr/bin/time >/dev/null && T="/usr/bin/time -f maxrss_kb=%M"
if [ "$1" = build ]; then
rm -rf /tmp/old-src && mkdir -p /tmp/old-src && tar -xzf .bench/s33/old.tar.gz -C /tmp/old-src
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
for v in old new; do
  tests=OFF; tg="sextant_cli"; [ $v = new ] && tests=ON && tg="$tg stream_window_cpu_tests stream_window_api_tests stream_window_cli_tests window_stream_runs_tests"
  ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 450 cmake --build /tmp/$v-b -j 8 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -1 /tmp/$v-b.log ) &
done; wait; el "builds done"
(/tmp/new-b/tests/window/stream_window_cpu_tests --gtest_brief=1 2>&1 | tail -3; /tmp/new-b/tests/api/stream_window_api_tests --gtest_brief=1 2>&1 | tail -2; /tmp/new-b/tests/apps/stream_window_cli_tests --gtest_brief=1 2>&1 | tail -3; /tmp/new-b/tests/apps/window_stream_runs_tests --gtest_brief=1 2>&1 | tail -2) > $out/tests.txt; cat $out/tests.txt; el "tests done"
exit 0; fi
if [ "$1" = ab ]; then
for r in $(seq ${ROUNDS:-3}); do for k in ${KEYS:-1000000 100000}; do for o in ${ORDERS:-key fire}; do for v in old new; do
  echo "== round $r keys $k order $o $v"
  $T timeout 90 /tmp/$v-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 --agg sum --order $o --output - 2>&1 >/dev/null | tail -2
done; done; done; el "round $r" >&2; done > $out/ab.txt 2>&1; el "ab done"; exit 0; fi
if [ "$1" = grid ]; then
for k in ${KEYS:-100000 1000000 4000000}; do for tpp in 2000 10000 50000 250000; do for len in 100000 1000000; do
  rate=$(python3 -c "print($tpp/1e4)"); n=$(python3 -c "print(min(33554432, $tpp*150))")
  echo "== keys $k tpp $tpp len $len stage auto n $n"
  $T timeout 60 /tmp/new-b/apps/sextant window --generate $n --rate $rate --keys $k --type time --length $len --slide 10000 --agg sum --order fire --output - 2>&1 >/dev/null | tail -2
done; done; done > $out/grid-auto.txt 2>&1; el "grid done"; fi

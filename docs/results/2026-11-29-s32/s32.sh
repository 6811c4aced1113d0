#!/bin/bash
# Session 32 scratch: the CLI in key order (radix order, runs mapped back and merged on every worker) and fire order, head (94c1062) against new.
out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
if [ "$1" = build ]; then
rm -rf /tmp/head-src && mkdir -p /tmp/head-src && tar -xzf .bench/s32/head.tar.gz -C /tmp/head-src
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
for v in head new; do
  tests=OFF; tg="sextant_cli"; [ $v = new ] && tests=ON && tg="$tg stream_window_api_tests stream_window_cli_tests window_stream_runs_tests"
  ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 400 cmake --build /tmp/$v-b -j 8 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -1 /tmp/$v-b.log ) &
done; wait; el "builds done"
(/tmp/new-b/tests/api/stream_window_api_tests --gtest_brief=1 2>&1 | tail -2; /tmp/new-b/tests/apps/stream_window_cli_tests --gtest_brief=1 2>&1 | tail -3; /tmp/new-b/tests/apps/window_stream_runs_tests --gtest_brief=1 2>&1 | tail -2) > $out/tests-cli.txt; cat $out/tests-cli.txt
(df -T /tmp; echo "TMPDIR=$TMPDIR"; nproc; free -g) > $out/host.txt
exit 0; fi
T=""; command -v /usr/bin/time >/dev/null && T="/usr/bin/time -f maxrss_kb=%M"
for r in $(seq ${ROUNDS:-3}); do for k in ${KEYS:-100000 10000}; do for o in ${ORDERS:-key fire}; do for v in head new; do
  echo "== round $r keys $k order $o $v"
  $T /tmp/$v-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 --agg sum --order $o --output - 2>&1 >/dev/null | tail -2
done; done; done; el "round $r" >&2; done > $out/cli${B}.txt 2>&1; el "cli done"
if [ "$BIG" = 1 ]; then for r in $(seq ${ROUNDS:-3}); do for k in 100000; do for bud in 1073741824 17179869184; do
  echo "== round $r keys $k budget $bud new"
  $T /tmp/new-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 --agg sum --order key --results-budget $bud --output - 2>&1 >/dev/null | tail -2
done; done; done > $out/big${B}.txt 2>&1; el "big done"; fi

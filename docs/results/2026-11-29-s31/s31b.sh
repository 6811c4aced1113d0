#!/bin/bash
# Session 31 scratch: the CLI in key order (sorted runs) and fire order, head (6b8df71) against new.
out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
rm -rf /tmp/head-src && mkdir -p /tmp/head-src && tar -xzf .bench/s31/head.tar.gz -C /tmp/head-src
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
for v in head new; do
  tests=OFF; tg="sextant_cli"; [ $v = new ] && tests=ON && tg="$tg stream_window_api_tests stream_window_cli_tests"
  ( cmake -S /tmp/$v-src -B /tmp/$v-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=$tests > /dev/null && timeout 300 cmake --build /tmp/$v-b -j 8 --target $tg > /tmp/$v-b.log 2>&1; echo "$v build rc=$?"; tail -1 /tmp/$v-b.log ) &
done; wait; el "builds done"
(/tmp/new-b/tests/api/stream_window_api_tests --gtest_brief=1 2>&1 | tail -2; /tmp/new-b/tests/apps/stream_window_cli_tests --gtest_brief=1 2>&1 | tail -3) > $out/tests-cli.txt; cat $out/tests-cli.txt
for r in 1 2 3; do for k in 100000 10000; do for o in key fire; do for v in head new; do
  echo "== round $r keys $k order $o $v"
  /tmp/$v-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 --agg sum --order $o --output - 2>&1 >/dev/null | tail -1
done; done; done; done > $out/cli-order.txt 2>&1; el "cli done"

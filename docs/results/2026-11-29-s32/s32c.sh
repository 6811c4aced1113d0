#!/bin/bash
# Session 32 scratch: the command line's defaults (key order, the new default budget) at 28bd22f.
out=${OUT:-/tmp/out}; mkdir -p $out
el() { echo "[$(date +%T)] $*"; }
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
cmake -S /tmp/new-src -B /tmp/new-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=ON > /dev/null && timeout 400 cmake --build /tmp/new-b -j 16 --target sextant_cli core_tests > /tmp/new-b.log 2>&1; echo "build rc=$?"; el "build done"
/tmp/new-b/tests/core/core_tests --gtest_filter='HostMemory*' --gtest_brief=1 2>&1 | tail -2 > $out/tests-core.txt; cat $out/tests-core.txt
(cat /proc/self/cgroup; cat /sys/fs/cgroup/memory.max 2>&1) > $out/cgroup.txt
for r in $(seq ${ROUNDS:-5}); do for k in 100000 10000; do for o in key fire; do
  echo "== round $r keys $k order $o default"
  /usr/bin/time -f maxrss_kb=%M /tmp/new-b/apps/sextant window --generate 33554432 --rate 10 --keys $k --type time --length 1000000 --slide 10000 --agg sum --order $o --output - 2>&1 >/dev/null | tail -2
done; done; done > $out/defaults.txt 2>&1; el "done"

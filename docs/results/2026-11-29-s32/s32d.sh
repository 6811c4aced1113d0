#!/bin/bash
# Session 32 scratch: 10^6 keys, fire order, the auto batch (2^21 tuples on 16 threads) against 2^19.
out=${OUT:-/tmp/out}; mkdir -p $out
rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
cmake -S /tmp/new-src -B /tmp/new-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null && timeout 300 cmake --build /tmp/new-b -j 16 --target sextant_cli > /tmp/new-b.log 2>&1; echo "build rc=$?"
for b in auto 524288 131072; do
  echo "== keys 1000000 fire batch $b"
  /usr/bin/time -f maxrss_kb=%M timeout 60 /tmp/new-b/apps/sextant window --generate 16777216 --rate 10 --keys 1000000 --type time --length 1000000 --slide 10000 --agg sum --order fire --batch $b --output - 2>&1 >/dev/null | tail -2
done > $out/million.txt 2>&1; cat $out/million.txt

#!/usr/bin/env bash
# Session 34 (issue 18): slide 1 against DABA Lite again, this tree (CPU only) and the scratch
# driver .bench/swag/swag_bench.cc over IBM sliding-window-aggregators 54c793b (never committed).
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p $out; t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
{ nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; } > $out/machine-fine.txt
( cmake -S $root -B /tmp/st -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF >/dev/null && timeout 280 cmake --build /tmp/st -j $(nproc) --target stream_throughput ) > $out/st-build.log 2>&1
el "build rc=$?"; tail -1 $out/st-build.log
g++ -O3 -march=native -DNDEBUG -std=c++17 -I$root/.bench/swag $root/.bench/swag/swag_bench.cc -o /tmp/swag_bench; el "swag rc=$?"
for rep in 1 2 3; do
  echo "== round $rep sextant"; taskset -c 2 /tmp/st/bench/window/stream_throughput --experiment fine --tuples 8388608 --repeats 3 --csv /tmp/fine-$rep.csv 2>&1 | grep "^fine"
  echo "== round $rep DABA Lite"; taskset -c 3 /tmp/swag_bench 8388608 3
done > $out/fine.txt 2>&1; el "fine done"

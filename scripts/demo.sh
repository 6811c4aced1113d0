#!/usr/bin/env bash
# Installs what is missing, builds Release and runs the main job: the skycube of a generated
# 100 000 x 8 anticorrelated dataset and of the NBA data in data/, printing a summary of each.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/release
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_BUILD_TESTS=OFF \
  -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target sextant_cli
sextant=$build/apps/sextant
out=$build/demo
mkdir -p "$out"

"$sextant" info
echo
echo "== skycube of anticorrelated 100 000 x 8 (seed 1)"
"$sextant" skycube --generate anti:100000:8:1 --template auto --output "$out/anti-100000-8.txt"
echo
echo "== skycube of the NBA data (17 264 players x 8 statistics)"
"$sextant" skycube --input "$root/data/nba-8-17264.csv" --template auto --format binary --output "$out/nba.cube"
echo "NBA skyline over columns 0,1 (first ids):"
"$sextant" query --cube "$out/nba.cube" --subspace 0,1 | cut -c1-120
echo
echo "outputs in $out"

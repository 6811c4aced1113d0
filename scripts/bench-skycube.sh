#!/usr/bin/env bash
# The skycube benchmark grids of docs/PERFORMANCE.md. Run from a build directory (or set
# SEXTANT_BUILD); CSVs go to $OUT (default ./bench-out). Modes:
#   dev   — this 2-core machine: the issue-3 targets with 2 threads
#   cpu   — the 16-core GPU host: the grid with every core, plus 1-thread runs for scaling
#   gpu   — the GPU MDMC and SDSC rows next to the 16-core CPU ones; the --gpu-entry rows (single-GPU
#           entries) carry the GPU's upload / kernel / download time after a '|' in the phases column
#   ties  — issue 21: tie-heavy data (ties:Q, Q = 2 3 4 8 16) beside independent data of the same n
#           and d, --template auto and every template, on THREADS threads (default every core);
#           GPU=gpu0 adds the GPU MDMC and SDSC entries. N and D override the grids.
set -uo pipefail
mode=${1:?usage: bench-skycube.sh dev|cpu|gpu|ties}
build=${SEXTANT_BUILD:-.}
out=${OUT:-bench-out}
mkdir -p "$out"
exp="$build/bench/skycube/skycube_experiment"
root=$(cd "$(dirname "$0")/.." && pwd)
t=${SEXTANT_BENCH_TIMEOUT:-300}

case "$mode" in
  dev)
    "$exp" --dists indep,anti --n 500000 --d 8 --threads 2 --repeats 3 --timeout "$t" --csv "$out/dev-500k-d8.csv"
    "$exp" --dists indep,anti,corr --n 100000 --d 12 --threads 2 --repeats 1 --timeout "$t" --csv "$out/dev-100k-d12.csv"
    "$exp" --dists indep --n 500000 --d 12 --templates mdmc --threads 2 --repeats 1 --timeout "$t" --csv "$out/dev-500k-d12.csv"
    "$exp" --dists indep --n 1000 --d 8 --templates stsc,sdsc,mdmc --threads 2 --repeats 3 --nba "$root/data/nba-8-17264.csv" \
      --csv "$out/dev-nba.csv"
    ;;
  cpu)
    n=$(nproc)
    "$exp" --dists indep,corr,anti --n 100000,500000 --d 8,12 --threads "$n" --repeats 1 --timeout "$t" \
      --nba "$root/data/nba-8-17264.csv" --csv "$out/cpu${n}-grid.csv"
    "$exp" --dists indep --n 500000 --d 12 --threads 1,"$n" --repeats 1 --timeout "$t" --csv "$out/cpu-scaling.csv"
    ;;
  gpu)
    "$exp" --dists indep,corr,anti --n 100000,500000 --d 8,12 --templates mdmc --devices gpu0 --repeats 1 \
      --timeout "$t" --csv "$out/gpu-grid.csv"
    "$exp" --dists anti --n 500000 --d 12 --templates mdmc --threads "$(nproc)" --repeats 1 --timeout "$t" \
      --csv "$out/gpu-vs-cpu-anti.csv"
    # The single-GPU entries (both hooks on the GPU, no scheduler): phases split into GPU time.
    "$exp" --dists indep,corr,anti --n 100000,500000,1000000 --d 12,16 --templates mdmc --devices gpu0 --gpu-entry \
      --repeats 1 --timeout "$t" --csv "$out/gpu-entry-mdmc.csv"
    "$exp" --dists indep,corr,anti --n 100000,500000 --d 8 --templates sdsc --devices gpu0 --gpu-entry --repeats 1 \
      --timeout "$t" --csv "$out/gpu-entry-sdsc-d8.csv"
    "$exp" --dists indep,corr,anti --n 100000 --d 12 --templates sdsc --devices gpu0 --gpu-entry --repeats 1 \
      --timeout "$t" --csv "$out/gpu-entry-sdsc-d12.csv"
    ;;
  ties)
    threads=${THREADS:-$(nproc)}
    dists=ties:2,ties:3,ties:4,ties:8,ties:16,indep
    # Headline: n = 200 000, d = 2 4 6 8, medians of 3.
    "$exp" --dists "$dists" --n 200000 --d 2,4,6,8 --templates auto,stsc,sdsc,mdmc --threads "$threads" \
      --repeats 3 --timeout "$t" --csv "$out/ties-200k.csv"
    # The series: n = 10^4 .. 10^6, d = 2 .. 12 (auto only; a run past the timeout is recorded as such).
    "$exp" --dists "$dists" --n "${N:-10000,100000,1000000}" --d "${D:-2,4,6,8,10,12}" --templates auto \
      --threads "$threads" --repeats 1 --timeout "$t" --csv "$out/ties-series.csv"
    if [ -n "${GPU:-}" ]; then
      "$exp" --dists "$dists" --n 200000,1000000 --d 4,8,12 --templates mdmc,sdsc --devices "$GPU" --gpu-entry \
        --repeats 1 --timeout "$t" --csv "$out/ties-gpu-entry.csv"
    fi
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

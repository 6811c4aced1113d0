#!/usr/bin/env bash
# The stream-window experiments of paper 000 (bench/window/stream_throughput) and their plots.
# Run from a build directory (or set SEXTANT_BUILD); results go to $OUT (default ./bench-out):
# stream-<mode>.txt (the table), stream-<mode>.csv and one stream_<experiment>.png per experiment
# (when matplotlib is installed). Modes:
#   quick — every experiment at tiny sizes on the CPU: a smoke test of a few seconds
#   cpu   — every experiment on the CPU with every core (2^26 tuples, median of 3)
#   gpu   — every experiment on gpu0; the figures also show stream-cpu.csv when it is in $OUT
# Extra arguments go to stream_throughput, e.g. `--experiment delay --tuples 268435456`.
set -uo pipefail
mode=${1:?usage: bench-window-stream.sh quick|cpu|gpu [stream_throughput options]}
shift
build=${SEXTANT_BUILD:-.}
out=${OUT:-bench-out}
root=$(cd "$(dirname "$0")/.." && pwd)
exe="$build/bench/window/stream_throughput"
mkdir -p "$out"
if [ ! -x "$exe" ]; then
  echo "bench-window-stream.sh: $exe not found (build the stream_throughput target, or set SEXTANT_BUILD)" >&2
  exit 2
fi

case "$mode" in
  quick) args=(--device cpu --quick) ;;
  cpu) args=(--device cpu) ;;
  gpu) args=(--device gpu0) ;;
  *) echo "unknown mode $mode (quick, cpu or gpu)" >&2; exit 2 ;;
esac

{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
  if [ "$mode" = gpu ]; then
    echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  fi
} >"$out/stream-$mode.txt"
"$exe" "${args[@]}" --csv "$out/stream-$mode.csv" "$@" | tee -a "$out/stream-$mode.txt"
status=${PIPESTATUS[0]}

csvs=("$out/stream-$mode.csv")
if [ "$mode" = gpu ] && [ -f "$out/stream-cpu.csv" ]; then csvs+=("$out/stream-cpu.csv"); fi
if [ "$status" -eq 0 ]; then python3 "$root/bench/window/plot_stream.py" "${csvs[@]}" --out "$out" || true; fi
exit "$status"

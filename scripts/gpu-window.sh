#!/usr/bin/env bash
# The count-window family on a GPU machine, in one call from the repository root:
#   1. configure (CUDA on) and build only what the window family needs, with every core;
#   2. the window tests: CPU, CLI end to end, and GPU (every algorithm and the selector);
#   3. compute-sanitizer memcheck and racecheck on a small GPU subset;
#   4. the heat map (paper 001, figure 3): W, S over 2^2..2^20, int32 sum over 4 GiB, every
#      algorithm and the selector; CSV, table and PNG;
#   5. a compact summary, printed last.
# Files go to $OUT when set (else <build>/out): build.log, tests.log, sanitizer.log,
# heatmap.txt, heatmap.csv, heatmap.png, summary.txt. Exit status: 0 only if every step passed.
#   SEXTANT_BUILD_DIR (default <repo>/build), HEATMAP_BYTES (default 4G), HEATMAP_REPEATS (3),
#   HEATMAP_MAX_EXP (20), SKIP_HEATMAP=1, SKIP_SANITIZERS=1.
set -uo pipefail
start=$(date +%s)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu-window
out=${OUT:-$build/out}
mkdir -p "$out" "$build"
status=0
summary=()
note() {  # note <line>: remembered for the summary
  summary+=("$1")
  echo "$1"
}
elapsed() { echo $(($(date +%s) - start)); }

echo "== machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; nproc; } 2>&1 |
  tee "$out/build.log"

echo "== configure + build ($(nproc) cores)"
targets="sextant_cli count_window_cpu_tests count_window_gpu_tests window_cli_tests count_heatmap"
if cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON \
  -DSEXTANT_BUILD_TESTS=ON -DSEXTANT_BUILD_BENCHMARKS=ON >>"$out/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" --target $targets >>"$out/build.log" 2>&1; then
  note "build: ok ($(elapsed) s)"
else
  tail -n 60 "$out/build.log"
  note "build: FAILED (see build.log)"
  printf '%s\n' "${summary[@]}" >"$out/summary.txt"
  exit 1
fi

echo "== tests"
: >"$out/tests.log"
run_test() {  # run_test <name> <binary> [args...]
  local name=$1
  shift
  local t0=$(date +%s)
  if "$@" >>"$out/tests.log" 2>&1; then
    note "tests $name: passed ($(($(date +%s) - t0)) s)"
  else
    status=1
    note "tests $name: FAILED (see tests.log)"
    grep -E "Failure|FAILED|error" "$out/tests.log" | tail -n 20
  fi
}
run_test cpu "$build/tests/window/count_window_cpu_tests" --gtest_brief=1
run_test cli "$build/tests/apps/window_cli_tests" --gtest_brief=1
run_test gpu "$build/tests/window/count_window_gpu_tests" --gtest_brief=1
grep -h "^profile" "$out/tests.log" | head -n 1

if [ "${SKIP_SANITIZERS:-0}" != 1 ] && command -v compute-sanitizer >/dev/null 2>&1; then
  echo "== compute-sanitizer"
  : >"$out/sanitizer.log"
  for tool in memcheck racecheck; do
    t0=$(date +%s)
    if timeout 180 compute-sanitizer --tool "$tool" --error-exitcode 1 "$build/tests/window/count_window_gpu_tests" \
      --gtest_filter='CountWindowDevice.SmallForSanitizers:CountWindowDevice.HostPointersAreRefused' \
      >>"$out/sanitizer.log" 2>&1; then
      note "sanitizer $tool: clean ($(($(date +%s) - t0)) s)"
    else
      status=1
      note "sanitizer $tool: FAILED (see sanitizer.log)"
      grep -E "=====|Error|FAILED" "$out/sanitizer.log" | tail -n 20
    fi
  done
else
  note "sanitizer: skipped"
fi

if [ "${SKIP_HEATMAP:-0}" != 1 ]; then
  echo "== heat map"
  t0=$(date +%s)
  repeats=${HEATMAP_REPEATS:-3}
  # Keep the whole script inside 9 minutes: a late start times each cell once.
  if [ -z "${HEATMAP_REPEATS:-}" ] && [ "$(elapsed)" -gt 270 ]; then repeats=1; fi
  if timeout 330 "$build/bench/window/count_heatmap" --bytes "${HEATMAP_BYTES:-4G}" --repeats "$repeats" \
    --max-exp "${HEATMAP_MAX_EXP:-20}" --csv "$out/heatmap.csv" >"$out/heatmap.txt" 2>"$out/heatmap.err"; then
    note "heat map: ok ($(($(date +%s) - t0)) s, median of $repeats)"
  else
    status=1
    note "heat map: FAILED (see heatmap.txt)"
    tail -n 20 "$out/heatmap.err"
  fi
  cat "$out/heatmap.err" >>"$out/heatmap.txt" && rm -f "$out/heatmap.err"
  sed -n '/^selector:/,/^$/p' "$out/heatmap.txt"
  if python3 "$root/bench/window/plot_heatmap.py" "$out/heatmap.csv" "$out/heatmap.png" >>"$out/heatmap.txt" 2>&1; then
    note "plot: $(ls "$out/heatmap.png" 2>/dev/null || echo 'not written (no matplotlib)')"
  fi
  while IFS= read -r line; do summary+=("$line"); done < <(sed -n '/^SUMMARY/,$p' "$out/heatmap.txt" | grep -v "W=.* done")
fi

note "total: $(elapsed) s, status $status"
echo
echo "================ gpu-window summary ================"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
exit $status

#!/usr/bin/env bash
# The one call to make on the lent GPU machine: configure with CUDA on, build with every core,
# run every test including the gpu-labelled ones, compute-sanitizer (memcheck, racecheck) on
# the GPU tests with small inputs, then the benchmarks named in SEXTANT_GPU_BENCH (a list of
# commands run from the build directory; they may write files to $BENCH_OUT). Logs and bench
# files are packed into $OUT/gpu-test.tgz when $OUT is set (the lent machine returns few files).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu
logs=$build/logs
export BENCH_OUT=$logs/bench
rm -rf "$logs"
mkdir -p "$logs" "$BENCH_OUT"
status=0
. "$root/scripts/lib/step.sh"  # step <name> <command...>

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } >"$logs/machine.txt" 2>&1
cat "$logs/machine.txt"
SEXTANT_NO_INSTALL=1 "$root/scripts/setup.sh" || exit 1
step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON
step build cmake --build "$build" -j "$(nproc)"
[ $status = 0 ] || exit 1
step tests ctest --test-dir "$build" --output-on-failure -j "$(( $(nproc) / 2 ))" --timeout 900 -LE gpu
step gpu-tests ctest --test-dir "$build" --output-on-failure -L gpu --timeout 900
"$build/apps/sextant" info | tee "$logs/info.txt"

# compute-sanitizer on small inputs: every GPU test binary, filtered to its small cases.
sanitize() {  # sanitize <binary> <gtest filter>
  local bin=$1 filter=$2 tool
  [ -x "$build/tests/gpu/$bin" ] || [ -x "$build/tests/window/$bin" ] || return 0
  local path=$build/tests/gpu/$bin
  [ -x "$path" ] || path=$build/tests/window/$bin
  for tool in memcheck racecheck; do
    step "sanitizer-$tool-$bin" compute-sanitizer --tool "$tool" --error-exitcode 1 "$path" --gtest_filter="$filter"
  done
}
if command -v compute-sanitizer >/dev/null 2>&1; then
  sanitize gpu_tests '*'
  sanitize skycube_gpu_tests '*Small*'
  sanitize count_window_gpu_tests "${SEXTANT_WINDOW_SANITIZER_FILTER:-*Small*}"
  sanitize stream_window_gpu_tests "${SEXTANT_STREAM_SANITIZER_FILTER:-*HandWorked*:*EmptyStream*:*NegativeTimestamp*:*BadTuple*}"
else
  echo "compute-sanitizer not found: sanitizer runs skipped"
fi

if [ -n "${SEXTANT_GPU_BENCH:-}" ]; then
  (cd "$build" && step bench bash -c "$SEXTANT_GPU_BENCH")
  cat "$logs/bench.log"
fi
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu-test.tgz" -C "$logs" .
echo "== gpu-test.sh finished with status $status (logs in $logs)"
exit $status

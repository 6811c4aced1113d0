#!/usr/bin/env bash
# Stream windows (paper 000) on a GPU machine, in one call from the repository root:
#   1. configure (CUDA on) and build only the stream-window GPU tests, with every core; a test
#      binary carried in $SEXTANT_PREBUILT (built elsewhere) is used instead when it runs here;
#   2. the GPU tests (shared conformance body + GPU cases);
#   3. the throughput check (sum, W = 1 s, S = 10 ms, 1 key in order / 1 s delay, 1000 keys);
#   4. compute-sanitizer memcheck and racecheck on a small subset;
#   5. the host emulation of the GPU algorithm; a summary, printed last.
# Logs go to $OUT when set (else <build>/out). Exit status: 0 only if every step passed.
#   SEXTANT_BUILD_DIR (default <repo>/build), SKIP_SANITIZERS=1, SKIP_THROUGHPUT=1.
set -uo pipefail
start=$(date +%s)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu-stream
out=${OUT:-$build/out}
mkdir -p "$out" "$build"
status=0
summary=()
note() {
  summary+=("$1")
  echo "$1"
}
elapsed() { echo $(($(date +%s) - start)); }

echo "== machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } 2>&1 | tee "$out/machine.txt"

gpu_tests=$build/tests/window/stream_window_gpu_tests
emu_tests=$build/tests/window/stream_window_gpu_emulation_tests
if [ -n "${SEXTANT_PREBUILT:-}" ] && "$SEXTANT_PREBUILT/stream_window_gpu_tests" --gtest_list_tests >/dev/null 2>&1; then
  gpu_tests=$SEXTANT_PREBUILT/stream_window_gpu_tests
  emu_tests=$SEXTANT_PREBUILT/stream_window_gpu_emulation_tests
  note "build: carried binaries run here"
else
  echo "== configure + build ($(nproc) cores)"
  if cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON \
    -DSEXTANT_BUILD_TESTS=ON -DSEXTANT_BUILD_BENCHMARKS=OFF >"$out/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target stream_window_gpu_tests stream_window_gpu_emulation_tests \
      >>"$out/build.log" 2>&1; then
    note "build: ok ($(elapsed) s)"
  else
    tail -n 60 "$out/build.log"
    note "build: FAILED (see build.log)"
    printf '%s\n' "${summary[@]}"
    exit 1
  fi
fi

run_step() {  # run_step <name> <log> <command...>
  local name=$1 log=$2
  shift 2
  local t0=$(date +%s)
  if "$@" >"$out/$log" 2>&1; then
    note "$name: passed ($(($(date +%s) - t0)) s)"
  else
    status=1
    note "$name: FAILED ($(($(date +%s) - t0)) s, see $log)"
    grep -E "Failure|FAILED|rror|Expected|Which is|got |want " "$out/$log" | head -n 40
  fi
}

echo "== tests"
run_step "gpu tests" gpu-tests.log timeout 120 "$gpu_tests" --gtest_brief=1

if [ "${SKIP_THROUGHPUT:-0}" != 1 ]; then
  echo "== throughput"
  SEXTANT_STREAM_GPU_THROUGHPUT=1 timeout 90 "$gpu_tests" --gtest_filter='GpuStreamWindow.Throughput' \
    >"$out/throughput.log" 2>&1 || status=1
  while read -r line; do note "$line"; done < <(grep "^throughput" "$out/throughput.log")
  grep -q "^throughput" "$out/throughput.log" || tail -n 20 "$out/throughput.log"
fi

if [ "${SKIP_SANITIZERS:-0}" != 1 ] && command -v compute-sanitizer >/dev/null 2>&1; then
  echo "== compute-sanitizer"
  small='Gpu/StreamWindowConformance/0.HandWorkedExample:Gpu/StreamWindowConformance/0.EmptyStreamAndSingleTuple'
  small+=':Gpu/StreamWindowConformance/0.NegativeTimestampIsRejected:GpuStreamWindow.BadTuple*'
  for tool in memcheck racecheck; do
    run_step "sanitizer $tool" "sanitizer-$tool.log" timeout 80 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$gpu_tests" --gtest_filter="$small" --gtest_brief=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer-$tool.log" | tail -n 2
  done
fi

echo "== emulation"
run_step "emulation tests" emulation-tests.log timeout 60 "$emu_tests" --gtest_brief=1

echo "== summary ($(elapsed) s)"
printf '%s\n' "${summary[@]}"
exit $status

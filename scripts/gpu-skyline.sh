#!/usr/bin/env bash
# Issue 20's GPU work on a GPU machine, in one call from the repository root:
#   1. configure (CUDA on) and build the skyline and stream-window GPU tests and the benchmarks;
#   2. the GPU tests: the skyline front door (skyline_gpu_tests: one GPU, every device, two GPUs),
#      StreamWindow::advance_watermark on a GPU (stream_window_api_gpu_tests), the stream-window
#      GPU suite (its conformance body now checks watermarks without tuples);
#   3. compute-sanitizer memcheck and racecheck on the one-GPU skyline cases;
#   4. bench/skycube/skyline_bench on gpu0, on every device and on the CPU's cores (same data),
#      CSV beside the logs.
# Logs go to $OUT when set (else <build>/out). Exit status: 0 only if every step passed.
#   SEXTANT_BUILD_DIR (default <repo>/build), SKIP_SANITIZERS=1, SKIP_BENCH=1.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu-skyline
out=${OUT:-$build/out}
logs=$out
mkdir -p "$out" "$build"
status=0
# shellcheck source=lib/step.sh
source "$root/scripts/lib/step.sh"

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
targets=(skyline_gpu_tests stream_window_api_gpu_tests stream_window_gpu_tests skyline_api_tests skyline_bench
         sextant_cli)
step build bash -c "cmake -S '$root' -B '$build' -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON \
  && cmake --build '$build' -j $(nproc) --target ${targets[*]}"
[ "$status" = 0 ] || exit 1

step skyline-gpu-tests "$build/tests/gpu/skyline_gpu_tests"
step stream-window-api-gpu-tests "$build/tests/api/stream_window_api_gpu_tests"
step stream-window-gpu-tests "$build/tests/window/stream_window_gpu_tests"
step skyline-api-tests "$build/tests/api/skyline_api_tests"
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  for tool in memcheck racecheck; do
    step "sanitizer-$tool" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$build/tests/gpu/skyline_gpu_tests" --gtest_filter='SkylineGpu.OneGpuConforms'
  done
  step sanitizer-memcheck-watermarks compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$build/tests/api/stream_window_api_gpu_tests"
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  bench=$build/bench/skycube/skyline_bench
  for devices in gpu0 all cpu; do
    step "skyline-bench-$devices" "$bench" --dists indep,anti --n 1000000,10000000 --d 4,8,12 --threads 0 \
      --devices "$devices" --repeats 5 --csv "$out/skyline-bench-$devices.csv"
  done
  step skyline-bench-cpu1 "$bench" --dists indep,anti --n 1000000 --d 4,8,12 --threads 1 --repeats 5 \
    --csv "$out/skyline-bench-cpu1.csv"
fi
echo "== done: status $status (logs in $out)"
exit "$status"

#!/usr/bin/env bash
# Stream windows (paper 000) on a GPU machine, in one call from the repository root:
#   1. configure (CUDA on) and build only the stream-window GPU tests, with every core; a test
#      binary carried in $SEXTANT_PREBUILT (built elsewhere) is used instead when it runs here;
#   2. the GPU tests (shared conformance body + GPU cases);
#   3. the throughput check (sum, W = 1 s, S = 10 ms, 1 key in order / 1 s delay, 1000 keys);
#   4. compute-sanitizer memcheck and racecheck on a small subset;
#   5. the host emulation of the GPU algorithm;
#   6. with BENCH=1, the measurements behind docs/PERFORMANCE.md: the paper's batch-size series on
#      the GPU, the CPU thread series (projection included), the CPU operator per core
#      (cpu_stream_kernel, in memory and hot), and with NCU=1 the GPU time per kernel of a
#      4 MiB-batch run (ncu); a summary, printed last.
# Logs go to $OUT when set (else <build>/out), packed into logs.tgz as well (the lent machine
# returns few files). Exit status: 0 only if every step passed.
#   SEXTANT_BUILD_DIR (default <repo>/build), SKIP_SANITIZERS=1, SKIP_THROUGHPUT=1, BENCH=1 (BENCH_GPU=0:
#   CPU series only), NCU=1.
set -uo pipefail
start=$(date +%s)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu-stream
out=${OUT:-$build/out}
mkdir -p "$out" "$build"
. "$root/scripts/lib/summary.sh"

echo "== machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } 2>&1 | tee "$out/machine.txt"

gpu_tests=$build/tests/window/stream_window_gpu_tests
emu_tests=$build/tests/window/stream_window_gpu_emulation_tests
if [ -n "${SEXTANT_PREBUILT:-}" ] && "$SEXTANT_PREBUILT/stream_window_gpu_tests" --gtest_list_tests >/dev/null 2>&1; then
  gpu_tests=$SEXTANT_PREBUILT/stream_window_gpu_tests
  emu_tests=$SEXTANT_PREBUILT/stream_window_gpu_emulation_tests
  note "build: carried binaries run here"
else
  targets=(stream_window_gpu_tests stream_window_gpu_emulation_tests gpu_tests)
  [ "${BENCH:-0}" = 1 ] && targets+=(stream_throughput cpu_stream_kernel)
  build_or_exit "$([ "${BENCH:-0}" = 1 ] && echo ON || echo OFF)" "${targets[@]}"
fi

echo "== tests"
run_step "gpu tests" gpu-tests.log timeout 120 "$gpu_tests" --gtest_brief=1
[ -x "$build/tests/gpu/gpu_tests" ] && run_step "device tests" device-tests.log timeout 60 "$build/tests/gpu/gpu_tests" --gtest_brief=1

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

if [ "${BENCH:-0}" = 1 ]; then
  echo "== bench"
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|L2|L3|NUMA node\(s\)" >>"$out/machine.txt"
  bench=$build/bench/window
  [ "${BENCH_GPU:-1}" = 1 ] && run_step "gpu batch series" bench-gpu-batch.txt timeout 240 \
    "$bench/stream_throughput" --device gpu0 --experiment batch --tuples $((1 << 23)) --repeats 3 \
    --csv "$out/bench-gpu-batch.csv"
  run_step "cpu thread series" bench-cpu-threads.txt timeout 150 "$bench/stream_throughput" --device cpu \
    --experiment threads --tuples $((1 << 24)) --repeats 3 --csv "$out/bench-cpu-threads.csv"
  run_step "cpu delay series, 1 thread" bench-cpu-delay.txt timeout 150 "$bench/stream_throughput" --device cpu \
    --experiment delay --threads 1 --tuples $((1 << 23)) --repeats 3 --csv "$out/bench-cpu-delay.csv"
  # The CPU operator per core on projected columns: 1 key and 1000 keys, in order and up to 1 s late,
  # 1M-tuple and 4 MiB (131072) batches, 1 and 10 tuples per us; then without watermarks (nothing
  # closes) from memory, and with one batch kept hot in cache.
  {
    for args in "1 0 1000000 1 1" "1 1000000 1000000 1 1" "1 0 131072 1 10" "1 1000000 131072 1 10" \
      "1000 0 1000000 1 100" "1000 1000000 1000000 1 100" "1 0 1000000 1 1 nowm" "1 0 1000000 1 1 hot"; do
      # shellcheck disable=SC2086
      "$bench/cpu_stream_kernel" 16000000 $args
    done
  } >"$out/bench-cpu-kernel.txt" 2>&1 || status=1
  cat "$out/bench-cpu-kernel.txt"
  if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null 2>&1; then
    run_step "ncu per kernel (4 MiB batches)" ncu-per-kernel.txt timeout 200 ncu --clock-control none \
      --metrics gpu__time_duration.sum --print-summary per-kernel "$bench/stream_throughput" --device gpu0 \
      --experiment aggregate --batch 4096 --tuples $((1 << 20)) --repeats 1 --csv "$out/ncu-run.csv"
  fi
fi

echo "== summary ($(elapsed) s)"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
tar czf "$build/logs.tgz" -C "$out" . && mv "$build/logs.tgz" "$out/logs.tgz"
exit $status

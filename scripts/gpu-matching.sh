#!/usr/bin/env bash
# Content-based matching (paper 002) on a GPU machine, in one call from the repository root:
#   1. configure (CUDA on) and build only the matching targets, with every core;
#   2. the GPU tests (the shared conformance body on the CCM hook and the Matcher on GPUs) and the
#      CPU matching tests;
#   3. compute-sanitizer memcheck and racecheck on a small subset of the GPU tests;
#   4. with BENCH=1, the measurements behind docs/PERFORMANCE.md ("Matching"): the default scenario
#      on the CPU (every core), gpu0 and all devices, latency (one event at a time) and throughput
#      (batches of 4096 and the batch series), the sweeps of section 4 on gpu0 and on the CPU, and
#      single adds/removes while batches run; a summary, printed last.
# Logs and CSVs go to $OUT when set (else <build>/out), packed into logs.tgz as well.
# Exit status: 0 only if every step passed.
#   SEXTANT_BUILD_DIR (default <repo>/build), SKIP_SANITIZERS=1, BENCH=1, SWEEPS=0 (BENCH without
#   the sweeps).
set -uo pipefail
start=$(date +%s)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu-matching
out=${OUT:-$build/out}
mkdir -p "$out" "$build"
. "$root/scripts/lib/summary.sh"

echo "== machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; git -C "$root" rev-parse --short HEAD; } \
  2>&1 | tee "$out/machine.txt"

targets=(matching_gpu_tests matching_cpu_tests matcher_api_tests matching_cli_tests pubsub_formats_tests sextant_cli)
[ "${BENCH:-0}" = 1 ] && targets+=(matching_bench)
build_or_exit "$([ "${BENCH:-0}" = 1 ] && echo ON || echo OFF)" "${targets[@]}"

tests=$build/tests/matching
echo "== tests"
run_step "gpu tests" gpu-tests.log timeout 300 "$tests/matching_gpu_tests" --gtest_brief=1
grep -E "SKIPPED|delta uploads" "$out/gpu-tests.log" | head -n 5
run_step "cpu tests" cpu-tests.log timeout 300 "$tests/matching_cpu_tests" --gtest_brief=1
run_step "api tests" api-tests.log timeout 300 "$tests/matcher_api_tests" --gtest_brief=1
run_step "cli tests" cli-tests.log timeout 300 "$tests/matching_cli_tests" --gtest_brief=1
run_step "format tests" format-tests.log timeout 120 "$tests/pubsub_formats_tests" --gtest_brief=1

if [ "${SKIP_SANITIZERS:-0}" != 1 ] && command -v compute-sanitizer >/dev/null 2>&1; then
  echo "== compute-sanitizer"
  small='Gpu/MatchingConformance.HandWorkedSemantics/*:Gpu/MatchingConformance.EmptyFiltersAndEvents/*'
  small+=':Gpu/MatchingConformance.LongKeyChains/hook:Gpu/MatchingConformance.RejectedChangesLeaveTheStateUnchanged/hook'
  small+=':MatchingGpu.ChangesReachTheGpuAsDeltas'
  for tool in memcheck racecheck; do
    run_step "sanitizer $tool" "sanitizer-$tool.log" timeout 600 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$tests/matching_gpu_tests" --gtest_filter="$small" --gtest_brief=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer-$tool.log" | tail -n 2
  done
fi

if [ "${BENCH:-0}" = 1 ]; then
  echo "== bench"
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|L2|L3|NUMA node\(s\)" >>"$out/machine.txt"
  bench=$build/bench/matching/matching_bench
  for devices in cpu gpu0 all; do
    run_step "default scenario, $devices" "bench-default-$devices.txt" timeout 600 "$bench" --experiment default \
      --devices "$devices" --events 65536 --repeats 5 --csv "$out/bench-default-$devices.csv"
    tail -n 3 "$out/bench-default-$devices.txt"
    run_step "batch series, $devices" "bench-batch-$devices.txt" timeout 600 "$bench" --experiment batch \
      --devices "$devices" --repeats 3 --csv "$out/bench-batch-$devices.csv"
  done
  run_step "latency, 1 event on the caller, gpu0" bench-latency-gpu0.txt timeout 300 "$bench" --experiment default \
    --devices gpu0 --mode latency --events 1000 --repeats 5 --csv "$out/bench-latency-gpu0.csv"
  tail -n 2 "$out/bench-latency-gpu0.txt"
  run_step "changes while batches run, all devices" bench-changes-all.txt timeout 600 "$bench" --experiment changes \
    --devices all --repeats 3 --csv "$out/bench-changes-all.csv"
  tail -n 2 "$out/bench-changes-all.txt"
  if [ "${SWEEPS:-1}" = 1 ]; then
    for devices in cpu gpu0; do
      run_step "sweeps, $devices" "bench-sweeps-$devices.txt" timeout 600 "$bench" --experiment all \
        --devices "$devices" --repeats 3 --csv "$out/bench-sweeps-$devices.csv"
    done
  fi
  if command -v python3 >/dev/null 2>&1; then
    python3 "$root/bench/matching/plot_matching.py" "$out"/bench-*.csv --out "$out" >"$out/plot.log" 2>&1 || true
  fi
fi

echo "== summary ($(elapsed) s)"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
tar czf "$build/logs.tgz" -C "$out" . && mv "$build/logs.tgz" "$out/logs.tgz"
exit $status

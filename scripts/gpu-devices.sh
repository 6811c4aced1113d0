#!/usr/bin/env bash
# Cross-device skycube runs on a lent (multi-)GPU machine, in one call: configure with CUDA on,
# build only the cross-device targets with every core, run the GPU tests of the skycube hooks, the
# scheduler and the CLI (compute-sanitizer on the device quad tree), then skycube_devices_bench.
#
#   scripts/gpu-devices.sh [all|tests|bench]      (default all; `bench` reuses an earlier build)
#
# Bench settings from the environment (defaults in brackets):
#   WORKLOADS [anti:1000000:16,indep:500000:12]   TEMPLATES [mdmc]   REPEATS [3]   TIMEOUT [300 s]
#   CONFIGS   [1, 2, 4, 8 ... GPUs up to the machine's, then all: gpu0,gpu0+gpu1,...,all]
#   SANITIZE  [1]: 0 skips compute-sanitizer
#   GPU_CORES [0 = the template's choice]: cores per GPU host worker; a space-separated list runs
#             the bench once for each
# Results go to $OUT (default <build>/out): devices.txt (table), devices.csv, logs.tgz (every log).
set -uo pipefail
mode=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/devices
out=${OUT:-$build/out}
logs=$build/logs
rm -rf "$logs"
mkdir -p "$logs" "$out"
status=0
. "$root/scripts/lib/step.sh"  # step <name> <command...>

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; echo "$(nproc) cores, $gpus GPUs"; } \
  >"$logs/machine.txt" 2>&1
cat "$logs/machine.txt"

if [ "$mode" != bench ]; then
  SEXTANT_NO_INSTALL=1 "$root/scripts/setup.sh" || exit 1
  step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON
  step build cmake --build "$build" -j "$(nproc)" --target sextant skycube_devices_bench skycube_gpu_tests \
    skycube_devices_gpu_tests skycube_devices_cli_tests
  [ $status = 0 ] || exit 1
fi
if [ "$mode" != bench ]; then
  # The GPU-facing suites side by side (the CPU ones run in CI); a suite passed when gtest says so.
  suites=(gpu/skycube_gpu_tests scheduler/skycube_devices_gpu_tests apps/skycube_devices_cli_tests)
  for t in "${suites[@]}"; do "$build/tests/$t" >"$logs/test-${t#*/}.log" 2>&1 & done
  wait
  for t in "${suites[@]}"; do
    log=$logs/test-${t#*/}.log
    echo "== test ${t#*/}: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
    grep -q '^\[  PASSED  \]' "$log" && ! grep -q '^\[  FAILED  \]' "$log" || { status=1; tail -n 40 "$log"; }
  done
  if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null 2>&1; then
    for tool in memcheck racecheck; do
      step "sanitizer-$tool-quad-tree" compute-sanitizer --tool "$tool" --error-exitcode 1 \
        "$build/tests/gpu/skycube_gpu_tests" --gtest_filter='*QuadTree*'
    done
  fi
fi
tar czf "$out/logs.tgz" -C "$logs" .  # the lent machine returns few files: one archive
if [ "$mode" != tests ]; then
  if [ -z "${CONFIGS:-}" ]; then
    CONFIGS=""
    list=""
    for ((g = 0; g < gpus; ++g)); do
      list=${list:+$list+}gpu$g
      if (((g + 1) & g)); then continue; fi  # 1, 2, 4, 8 ... GPUs
      CONFIGS=${CONFIGS:+$CONFIGS,}$list
    done
    CONFIGS=${CONFIGS:+$CONFIGS,}all
  fi
  {
    echo "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
    sed 's/^/# /' "$logs/machine.txt"
  } >"$out/devices.txt"
  for cores in ${GPU_CORES:-0}; do
    echo "== bench, gpu cores $cores" | tee -a "$out/devices.txt"
    stdbuf -oL "$build/bench/scheduler/skycube_devices_bench" \
      --workloads "${WORKLOADS:-anti:1000000:16,indep:500000:12}" --templates "${TEMPLATES:-mdmc}" \
      --configs "$CONFIGS" --gpu-cores "$cores" --repeats "${REPEATS:-3}" --timeout "${TIMEOUT:-300}" \
      --csv "$out/devices-c$cores.csv" 2>&1 | tee "$logs/bench-c$cores.log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    cat "$logs/bench-c$cores.log" >>"$out/devices.txt"
  done
  cat "$out/devices.txt"
  tar czf "$out/logs.tgz" -C "$logs" .
fi
echo "== gpu-devices.sh finished with status $status"
exit $status

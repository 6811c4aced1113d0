#!/usr/bin/env bash
# The one call to make on the lent GPU machine: configure with CUDA on, build with every core,
# run every test including the gpu-labelled ones, compute-sanitizer (memcheck, racecheck) on
# the GPU tests with small inputs, then the benchmarks named in SEXTANT_GPU_BENCH (a list of
# commands run from the build directory). Logs go to $OUT when it is set.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu
logs=${OUT:-$build/logs}
mkdir -p "$logs"
status=0
step() {  # step <name> <command...>: runs, logs to $logs/<name>.log, remembers failures
  local name=$1
  shift
  echo "== $name"
  if "$@" >"$logs/$name.log" 2>&1; then
    tail -n 3 "$logs/$name.log"
  else
    status=1
    echo "FAILED: $name (last lines of $logs/$name.log)"
    tail -n 40 "$logs/$name.log"
  fi
}

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } >"$logs/machine.txt" 2>&1
cat "$logs/machine.txt"
SEXTANT_NO_INSTALL=1 "$root/scripts/setup.sh" || exit 1
step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON
step build cmake --build "$build" -j "$(nproc)"
[ $status = 0 ] || exit 1
step tests ctest --test-dir "$build" --output-on-failure -j 4 --timeout 900
step gpu-tests ctest --test-dir "$build" --output-on-failure -L gpu --timeout 900
"$build/apps/sextant" info | tee "$logs/info.txt"

if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck; do
    step "sanitizer-$tool" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$build/tests/gpu/gpu_tests" --gtest_filter="${SEXTANT_SANITIZER_FILTER:-*}"
  done
else
  echo "compute-sanitizer not found: sanitizer runs skipped"
fi

if [ -n "${SEXTANT_GPU_BENCH:-}" ]; then
  (cd "$build" && step bench bash -c "$SEXTANT_GPU_BENCH")
fi
echo "== gpu-test.sh finished with status $status (logs in $logs)"
exit $status

#!/usr/bin/env bash
# Pipelines (paper 003) on a GPU machine, in one call from the repository root:
#   1. configure (CUDA on) and build the pipeline tests, the CLI and the benchmark driver, with every core;
#   2. the GPU tests: the replica conformance body on the GPU's block replicas (pipeline_replica_gpu_tests)
#      and the applications through the front door on gpu0 and on all devices (pipeline_apps_gpu_tests),
#      then the CPU suites of the family;
#   3. compute-sanitizer memcheck and racecheck on a small subset;
#   4. CLI runs of the four applications on gpu0 and on all devices, checked against the CPU's output;
#   5. with BENCH=1 (default), the measurements of docs/PERFORMANCE.md ("Pipelines"): queue sizing, merge
#      strategies, the queue-free kernel and the devices, on gpu0 (and the CPU series, SCALE_CPU);
#      a summary, printed last.
# Logs go to $OUT when set (else <build>/out), packed into logs.tgz as well.
#   SEXTANT_BUILD_DIR (default <repo>/build), SKIP_SANITIZERS=1, BENCH=0, SCALE (GPU inputs, default 64),
#   SCALE_CPU (default 4), REPEATS (default 3).
set -uo pipefail
start=$(date +%s)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}/gpu-pipeline
out=${OUT:-$build/out}
mkdir -p "$out" "$build"
. "$root/scripts/lib/summary.sh"

echo "== machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep -E "Model name|^CPU\(s\)|NUMA node\(s\)"; git -C "$root" log -1 --format='commit %H %cd'; } 2>&1 | tee "$out/machine.txt"

targets=(pipeline_replica_gpu_tests pipeline_apps_gpu_tests pipeline_replica_cpu_tests pipeline_plan_tests
         pipeline_apps_cpu_tests pipeline_cli_tests sextant_cli pipeline_bench)
build_or_exit "ON" "${targets[@]}"

tests=$build/tests/pipeline
echo "== tests"
run_step "gpu replica tests" gpu-replica-tests.log timeout 600 "$tests/pipeline_replica_gpu_tests" --gtest_brief=1
run_step "gpu app tests (gpu0, all)" gpu-app-tests.log timeout 900 "$tests/pipeline_apps_gpu_tests" --gtest_brief=1
run_step "cpu replica tests" cpu-replica-tests.log timeout 300 "$tests/pipeline_replica_cpu_tests" --gtest_brief=1
run_step "plan tests" plan-tests.log timeout 120 "$tests/pipeline_plan_tests" --gtest_brief=1
run_step "cpu app tests" cpu-app-tests.log timeout 900 "$tests/pipeline_apps_cpu_tests" --gtest_brief=1
run_step "cli tests" cli-tests.log timeout 300 "$build/tests/apps/pipeline_cli_tests" --gtest_brief=1

if [ "${SKIP_SANITIZERS:-0}" != 1 ] && command -v compute-sanitizer >/dev/null 2>&1; then
  echo "== compute-sanitizer"
  small='GpuReplica.ChunksInTheMiddleEmptyAndSingle:GpuReplica.GainLimitErrorsNameTheNode'
  for tool in memcheck racecheck; do
    run_step "sanitizer $tool (replicas)" "sanitizer-$tool.log" timeout 600 compute-sanitizer --tool "$tool" \
      --error-exitcode 1 "$tests/pipeline_replica_gpu_tests" --gtest_filter="$small" --gtest_brief=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer-$tool.log" | tail -n 2
  done
  run_step "sanitizer memcheck (apps)" sanitizer-apps.log timeout 900 compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$tests/pipeline_apps_gpu_tests" --gtest_filter='Gpu/PipelineApps.OneInputAndAnEmptyInput/0:Gpu/PipelineApps.TaxiMalformed*/0:Gpu/PipelineApps.SyntheticGainZeroAndMaximalGain/0' --gtest_brief=1
fi

echo "== cli: gpu0 and all against cpu"
cli=$build/apps/sextant
for app in "nqueens --n 12" "blast --db-length 2000000 --copies 40" "taxi --lines 20000" "synthetic --sources 300000"; do
  name=${app%% *}
  # shellcheck disable=SC2086
  "$cli" pipeline run --app $app --order --devices cpu --output "$out/cli-$name-cpu.txt" 2>>"$out/cli.log"
  for d in gpu0 all; do
    # shellcheck disable=SC2086
    if "$cli" pipeline run --app $app --order --merge auto --devices $d --report --output "$out/cli-$name-$d.txt" 2>>"$out/cli.log" &&
      cmp -s "$out/cli-$name-cpu.txt" "$out/cli-$name-$d.txt"; then
      note "cli $name on $d: same output as the CPU"
    else
      status=1
      note "cli $name on $d: FAILED or differs (cli.log)"
    fi
  done
done

if [ "${BENCH:-1}" = 1 ]; then
  echo "== bench"
  bench=$build/bench/pipeline/pipeline_bench
  repeats=${REPEATS:-3}
  for exp in sizing merge fused devices; do
    run_step "bench $exp gpu0" "bench-$exp-gpu.txt" timeout 1800 "$bench" --experiment $exp --device gpu0 \
      --scale "${SCALE:-64}" --repeats "$repeats" --csv "$out/bench-$exp-gpu.csv"
  done
  run_step "bench cpu (all experiments)" bench-cpu.txt timeout 1800 "$bench" --experiment all --device cpu \
    --scale "${SCALE_CPU:-4}" --repeats "$repeats" --csv "$out/bench-cpu.csv"
  grep -hE "^(merge|fused) .*(measured best|best plan)" "$out"/bench-*.txt | tee -a "$out/summary-bench.txt"
fi

echo "== summary ($(elapsed) s)"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
tar czf "$build/logs.tgz" -C "$out" . && mv "$build/logs.tgz" "$out/logs.tgz"
exit $status

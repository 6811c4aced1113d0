#!/usr/bin/env bash
# Session 15 on the GPU machine (issue 19): build this tree (CUDA, tests) and e8aab74 (CUDA, the
# CLI and hash_cube_bench only), run the GPU tests, then the HashCube phase of anti 1M x 16 on
# gpu0 and hash_cube_bench at 16 threads, old and new interleaved. Phase x4: 1, 2 and 4 GPUs.
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b; d=/tmp/d; mkdir -p $d
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
phase=${1:?phase}; old_src=$root/.bench/base-e8aab74
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; free -g | head -2; } > $out/machine.txt 2>&1
cat $out/machine.txt
run_cli() {  # version devices -> the summary line
  $b/$1/apps/sextant skycube --generate anti:1000000:16 --template mdmc --devices $2 --format binary --output $d/a16-$1.bin 2>&1 | tail -1
}
case $phase in
build)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null && cmake --build $b/new -j 11 ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null && cmake --build $b/old -j 5 --target sextant_cli hash_cube_bench ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20; tail -2 $out/build-new.log
  ;;
test)
  ( cd $b/new && ctest -L gpu --output-on-failure -j 2 > $out/ctest-gpu.log 2>&1; el "ctest gpu rc=$?"; tail -3 $out/ctest-gpu.log )
  for t in scheduler_tests skycube_devices_tests hash_cube_tests mdmc_tests; do f=$(find $b/new/tests -name $t -type f | head -1); $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(tail -1 $out/test-$t.log)"; done
  f=$(find $b/new/tests -name skycube_devices_gpu_tests -type f | head -1)
  timeout 240 compute-sanitizer --tool memcheck --leak-check full $f --gtest_filter='*Mdmc*' > $out/sanitizer.log 2>&1; el "compute-sanitizer rc=$? $(grep -E 'ERROR SUMMARY' $out/sanitizer.log | tail -1)"
  ;;
cli)
  for i in 1 2; do for v in old new; do echo "$v gpu0: $(run_cli $v gpu0)"; done; done > $out/hashcube.txt; el "cli done"; cat $out/hashcube.txt
  cmp $d/a16-old.bin $d/a16-new.bin && echo "cubes identical" | tee -a $out/hashcube.txt
  ;;
bench)
  for v in old new; do timeout 140 $b/$v/bench/skycube/hash_cube_bench --benchmark_filter='points:1000000/parts:1/threads:16/keys:(0|4096)/' > $out/hash_cube_bench-$v.txt 2>&1; el "bench $v rc=$?"; grep from_parts $out/hash_cube_bench-$v.txt; done
  ;;
x4)  # 4 GPUs: the CLI on 1, 2 and 4 of them (new twice, old once), hash_cube_bench at 1 and 16 threads
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null && cmake --build $b/new -j 40 --target sextant_cli hash_cube_bench ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build $b/old -j 24 --target sextant_cli ) > $out/build-old.log 2>&1
  wait; el "builds done"; grep -E "error|FAILED" $out/build-*.log | head -20
  nvidia-smi -L; nproc
  for i in 1 2; do for dev in gpu0 gpu0,gpu1 gpu0,gpu1,gpu2,gpu3; do echo "new $dev: $(run_cli new $dev)"; [ $i = 1 ] && [ $dev != gpu0,gpu1 ] && echo "old $dev: $(run_cli old $dev)"; done; done > $out/x4.txt; el "x4 done"; cat $out/x4.txt
  cmp $d/a16-old.bin $d/a16-new.bin && echo "cubes identical" | tee -a $out/x4.txt
  timeout 150 $b/new/bench/skycube/hash_cube_bench --benchmark_filter='points:1000000/parts:1/threads:(1|16)/keys:4096/' > $out/hash_cube_bench-x4.txt 2>&1; el "bench rc=$?"; grep from_parts $out/hash_cube_bench-x4.txt
  ;;
report)  # 4 GPUs: the scheduler's per-device report for 1 and 4 GPUs
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build $b/new -j 64 --target sextant_cli ) > $out/build-new.log 2>&1
  el "build done rc=$?"; grep -E "error|FAILED" $out/build-new.log | head -20
  for dev in gpu0 gpu0,gpu1,gpu2,gpu3; do $b/new/apps/sextant skycube --generate anti:1000000:16 --template mdmc --devices $dev --format binary --output $d/a16.bin --report > $out/report-$dev.txt 2>&1; el "$dev rc=$?"; cat $out/report-$dev.txt; done
  ;;
esac

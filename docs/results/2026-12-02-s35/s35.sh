#!/usr/bin/env bash
# Session 35 on the GPU machine: MDMC's words kept on the GPUs (issue 19). Phases:
#   build   the CLI and the skycube test binaries (folder /tmp/f, kept between calls), with the
#           scratch patches s35-keep-env.patch (SX_KEEP=0 turns the kept words off: the A/B) and
#           s35-trace.patch (SX_TRACE=1: the collect's two steps timed on stderr)
#   tests   skycube_gpu_tests, skycube_devices_gpu_tests, hash_cube_tests, skycube_devices_tests
#   sanit   compute-sanitizer memcheck and racecheck on the *Small* GPU skycube tests
#   cube    anti 1M x 16, MDMC on gpu0, kept words on and off alternating, three rounds, cubes cmp'd
#   x2      on nvidia-h200-x2: the same build, the multi-GPU tests, then anti 1M x 16 on gpu0 and
#           gpu0,gpu1, kept on and off, two rounds
set -uo pipefail
phases="$*"
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; f=/tmp/f
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
jobs=$(nproc)
targets="sextant_cli skycube_gpu_tests skycube_devices_gpu_tests hash_cube_tests skycube_devices_tests"
sx=$f/apps/sextant
cube() {  # cube DEVICES KEEP TAG
  SX_TRACE=1 SX_KEEP=$2 timeout 120 $sx skycube --generate anti:1000000:16 --template mdmc --devices $1 --format binary \
    --output /tmp/cube-$3.bin 2>&1 | grep -vi "computing the skycube"
}
for phase in $phases; do case $phase in
build)
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; } > $out/machine.txt 2>&1
  for p in s35-keep-env s35-trace; do patch -p1 -N < .bench/$p.patch >> $out/patch.log 2>&1; el "scratch patch $p rc=$?"; done
  ( cmake -S $root -B $f -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON >/dev/null &&
    timeout 540 cmake --build $f -j $jobs --target $targets ) > $out/build.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build.log | head -20; tail -1 $out/build.log
  ;;
tests)
  for t in skycube_gpu_tests skycube_devices_gpu_tests hash_cube_tests skycube_devices_tests; do
    b=$(find $f/tests -name $t -type f | head -1)
    timeout 300 $b --gtest_brief=1 > $out/test-$t.log 2>&1
    el "$t rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/test-$t.log | tr '\n' ' ')"
    grep -E '^\[  FAILED|Failure|error' $out/test-$t.log | head -10
  done
  ;;
sanit)
  b=$(find $f/tests -name skycube_gpu_tests -type f | head -1)
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $b --gtest_brief=1 \
      --gtest_filter='SkycubeGpu.SmallSanitizerRun:SkycubeGpu.HookReportsBitmapPlacement:SkycubeGpu.KeptWordsOfSeveralHooksMakeOneCube' > $out/$tool.log 2>&1
    el "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $out/$tool.log | head -3 | tr '\n' ' ')"
  done
  ;;
cube)
  for rep in 1 2 3; do for keep in 0 1; do
    echo "== gpu0 keep=$keep #$rep"; cube gpu0 $keep k$keep
  done; cmp /tmp/cube-k0.bin /tmp/cube-k1.bin && echo "cubes identical"; done > $out/cube.txt 2>&1
  rm -f /tmp/cube-*.bin; el "cube done"
  ;;
x2)
  for t in skycube_devices_gpu_tests; do
    b=$(find $f/tests -name $t -type f | head -1)
    timeout 200 $b --gtest_brief=1 > $out/x2-test-$t.log 2>&1
    el "x2 $t rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/x2-test-$t.log | tr '\n' ' ')"
  done
  for rep in 1 2; do for dev in gpu0 gpu0,gpu1; do for keep in 0 1; do
    echo "== $dev keep=$keep #$rep"; cube $dev $keep k$keep
  done; cmp /tmp/cube-k0.bin /tmp/cube-k1.bin && echo "cubes identical"; done; done > $out/x2.txt 2>&1
  rm -f /tmp/cube-*.bin; el "x2 done"
  ;;
esac; done

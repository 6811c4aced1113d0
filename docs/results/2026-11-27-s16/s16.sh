#!/usr/bin/env bash
# Session 16 on the GPU machine (issue 19): build this tree and d210405 (the session's base, CLI
# only), then time ingest (stream CSV, dataset CSV) and the HashCube phase of anti 1M x 16, old
# and new interleaved in the same call. The new tree was measured with three temporary switches
# for an A/B inside one binary, removed before the commit (an env check in InputFile::map_rest,
# advise_huge_pages and regrow_storage): SEXTANT_NO_MMAP (read instead of map), SEXTANT_NO_THP (no
# huge pages for parsed columns), SEXTANT_NO_THP_PARTS (none for HashCube parts).
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b; d=/tmp/d; mkdir -p $d
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
phase=${1:?phase}; old_src=$root/.bench/base-d210405; jobs=$(nproc)
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; free -g | head -2; cat /sys/kernel/mm/transparent_hugepage/enabled; } > $out/machine.txt 2>&1
cat $out/machine.txt
new_targets="sextant_cli hash_cube_bench datagen_tests stream_datagen_tests hash_cube_tests skycube_devices_gpu_tests"
load_of() { grep -oE "load [0-9.]+ s" | head -1; }
case $phase in
build)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null && cmake --build $b/new -j $((jobs*3/4)) --target $new_targets ) > $out/build-new.log 2>&1 &
  ( cmake -S $old_src -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build $b/old -j $((jobs/4)) --target sextant_cli ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20; tail -2 $out/build-new.log
  ;;
test)
  for t in datagen_tests stream_datagen_tests hash_cube_tests skycube_devices_gpu_tests; do f=$(find $b/new/tests -name $t -type f | head -1); $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(tail -1 $out/test-$t.log)"; done
  ;;
ingest)  # stream CSV (window) and dataset CSV (skycube --max-level 1) load phases, 3 rounds
  S=$b/new/apps/sextant
  [ -f $d/s.csv ] || $S generate-stream --n 20000000 --keys 1000 --delay 100 --output $d/s.csv > /dev/null 2>&1
  [ -f $d/big.csv ] || $S generate --dist indep --n 4000000 --d 8 --output $d/big.csv > /dev/null 2>&1
  ls -la $d
  for i in 1 2 3; do
    for v in old new new-nommap new-nothp; do
      bin=$b/${v%%-*}/apps/sextant; envs=""
      [ $v = new-nommap ] && envs="SEXTANT_NO_MMAP=1"; [ $v = new-nothp ] && envs="SEXTANT_NO_THP=1"
      echo "stream $v: $(env $envs $bin window --type time --input $d/s.csv --length 100000 --slide 100000 --agg sum --output - 2>&1 >$d/w-$v.txt | load_of)"
      echo "dataset $v: $(env $envs $bin skycube --input $d/big.csv --max-level 1 --format binary --output $d/c-$v.bin 2>&1 | grep -oE 'load [0-9.]+ s')"
    done
    echo "wc: $( { /usr/bin/time -f %e wc -l $d/s.csv >/dev/null; } 2>&1 ) $( { /usr/bin/time -f %e wc -l $d/big.csv >/dev/null; } 2>&1 )"
  done > $out/ingest.txt; cat $out/ingest.txt
  for v in new new-nommap new-nothp; do cmp $d/w-old.txt $d/w-$v.txt && cmp $d/c-old.bin $d/c-$v.bin && echo "$v: outputs identical to old"; done | tee -a $out/ingest.txt
  OMP_NUM_THREADS=1 $b/new/apps/sextant window --type time --input $d/s.csv --length 100000 --slide 100000 --agg sum --output - 2>&1 >/dev/null | tail -1 | tee -a $out/ingest.txt
  ;;
cube)  # anti 1M x 16 on DEVICES ($2): huge pages for the parts or not (same binary); old when $3 = old
  dev=${2:?devices}
  run_cli() { env $2 $b/$1/apps/sextant skycube --generate anti:1000000:16 --template mdmc --devices $3 --format binary --output $d/a16-$1.bin 2>&1 | tail -1; }
  for i in 1 2; do
    echo "new thp-parts $dev: $(run_cli new X=1 $dev)"
    echo "new no-thp-parts $dev: $(run_cli new SEXTANT_NO_THP_PARTS=1 $dev)"
  done > $out/cube-$dev.txt; cat $out/cube-$dev.txt
  [ "${3:-}" = old ] && { echo "old $dev: $(run_cli old X=1 $dev)" | tee -a $out/cube-$dev.txt; cmp $d/a16-old.bin $d/a16-new.bin && echo "cubes identical" | tee -a $out/cube-$dev.txt; }
  ;;
x4build)  # a multi-GPU host: the new CLI only
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build $b/new -j $jobs --target sextant_cli ) > $out/build-x4.log 2>&1
  el "build rc=$?"; grep -E "error|FAILED" $out/build-x4.log | head; nvidia-smi -L
  ;;
threads)  # a multi-GPU host: one GPU with 16 cores or all of them, four GPUs (16 cores each)
  for i in 1 2; do for run in "gpu0 16" "gpu0 0" "gpu0,gpu1,gpu2,gpu3 0"; do set -- $run
    t=""; [ $2 != 0 ] && t="--threads $2"
    echo "$1 threads=$2: $($b/new/apps/sextant skycube --generate anti:1000000:16 --template mdmc --devices $1 $t --format binary --output $d/a16.bin 2>&1 | tail -1 | sed -E 's/extended_skyline.*filter/filter/; s/, write.*//')"
  done; done > $out/threads.txt; cat $out/threads.txt
  ;;
bench)
  for e in X=1 SEXTANT_NO_THP_PARTS=1; do env $e timeout 100 $b/new/bench/skycube/hash_cube_bench --benchmark_filter='points:1000000/parts:1/threads:16/keys:4096/' > $out/hash_cube_bench-${e%%=*}.txt 2>&1; el "bench $e rc=$?"; grep from_parts $out/hash_cube_bench-${e%%=*}.txt; done
  ;;
esac

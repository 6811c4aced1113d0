#!/usr/bin/env bash
# Session 14 on the GPU machine (issue 19): build this tree (CUDA) and 899a237 (CPU only), then
# ingest (dataset CSV and binary, stream CSV), text output (skycube, window, match), and the
# skycube phases of anti 1M x 16 on gpu0, old and new interleaved.
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"; b=/tmp/b; d=/tmp/d; mkdir -p $d
t0=$(date +%s); el() { echo "[$(($(date +%s)-t0)) s] $*"; }
phase=${1:?phase}
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; git rev-parse --short HEAD; free -g | head -2; } > $out/machine.txt 2>&1
cat $out/machine.txt
ph() { grep -oE "$1 [0-9.]+ s" | head -1; }
case $phase in
build)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null && cmake --build $b/new -j 12 --target sextant_cli datagen_tests stream_datagen_tests core_tests ) > $out/build-new.log 2>&1 &
  ( cmake -S $root/.bench/base-899a237 -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build $b/old -j 4 --target sextant_cli ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20
  for t in datagen_tests stream_datagen_tests core_tests; do f=$(find $b/new/tests -name $t -type f | head -1); $f --gtest_brief=1 > $out/test-$t.log 2>&1; el "$t rc=$? $(tail -1 $out/test-$t.log)"; done
  ;;
ingest)
  S=$b/new/apps/sextant; O=$b/old/apps/sextant
  [ -f $d/big.csv ] || $S generate --dist indep --n 4000000 --d 8 --seed 1 --output $d/big.csv > /dev/null 2>&1
  [ -f $d/big.bin ] || $S generate --dist indep --n 4000000 --d 8 --seed 1 --output $d/big.bin > /dev/null 2>&1
  [ -f $d/s.csv ] || $S generate-stream --n 20000000 --keys 1000 --delay 100 --output $d/s.csv > /dev/null 2>&1
  ls -la $d
  for i in 1 2 3; do
    echo "wc big.csv: $( { /usr/bin/time -f '%e s' wc -l $d/big.csv; } 2>&1 | tr '\n' ' ')  wc s.csv: $( { /usr/bin/time -f '%e s' wc -l $d/s.csv; } 2>&1 | tr '\n' ' ')"
    for v in old new new-1t; do case $v in new-1t) e=(OMP_NUM_THREADS=1); bin=$S;; old) e=(); bin=$O;; *) e=(); bin=$S;; esac
      echo "$v csv: $(env "${e[@]}" $bin skycube --input $d/big.csv --max-level 1 --output $d/sky-$v.bin --format binary 2>&1 | ph load)  bin: $(env "${e[@]}" $bin skycube --input $d/big.bin --max-level 1 --output $d/skyb-$v.bin --format binary 2>&1 | ph load)  stream: $(env "${e[@]}" $bin window --type time --input $d/s.csv --length 100000 --slide 100000 --agg sum --output $d/w-$v.csv 2>&1 | ph load)"
    done
  done > $out/ingest.txt; el "ingest done"; cat $out/ingest.txt
  cmp $d/sky-old.bin $d/sky-new.bin && cmp $d/skyb-old.bin $d/skyb-new.bin && cmp $d/w-old.csv $d/w-new.csv && echo "outputs identical"
  ;;
output)
  S=$b/new/apps/sextant; O=$b/old/apps/sextant
  [ -f $d/f.txt ] || $S generate-pubsub --subscriptions $d/f.txt --events $d/e.txt --event-count 200000 > /dev/null 2>&1
  for i in 1 2 3; do
    for v in old new; do bin=$b/$v/apps/sextant
      echo "$v skycube indep:500000:12 cpu: file $($bin skycube --generate indep:500000:12 --template mdmc --output $d/t-$v.txt 2>&1 | ph write) stdout $($bin skycube --generate indep:500000:12 --template mdmc --output - 2>$d/err.txt > $d/ts-$v.txt; ph write < $d/err.txt)  window: $($bin window --type time --generate 20000000 --keys 1000 --length 10000 --slide 10000 --agg sum --output $d/wo-$v.csv 2>&1 | ph write)  match: $($bin match --subscriptions $d/f.txt --events $d/e.txt --output $d/m-$v.csv 2>&1 | ph write)"
    done
  done > $out/output.txt; el "output done"; cat $out/output.txt
  cmp $d/t-old.txt $d/t-new.txt && cmp $d/wo-old.csv $d/wo-new.csv && cmp $d/m-old.csv $d/m-new.csv && echo "outputs identical"
  echo "ids in t-new.txt: $(awk 'NR>1{s+=$2} END{print s}' $d/t-new.txt), bytes $(stat -c %s $d/t-new.txt), rows wo: $(wc -l < $d/wo-new.csv), m: $(wc -l < $d/m-new.csv)" | tee -a $out/output.txt
  for i in 1 2; do echo "gpu0 indep:500000:12 text: $($S skycube --generate indep:500000:12 --template mdmc --devices gpu0 --output $d/tg.txt 2>&1 | tail -1)"; echo "gpu0 anti:500000:12 text: $($S skycube --generate anti:500000:12 --template mdmc --devices gpu0 --output $d/ta.txt 2>&1 | tail -1)"; done >> $out/output.txt
  echo "ids in ta.txt: $(awk 'NR>1{s+=$2} END{print s}' $d/ta.txt) tg.txt: $(awk 'NR>1{s+=$2} END{print s}' $d/tg.txt)" | tee -a $out/output.txt
  ;;
hashcube)
  S=$b/new/apps/sextant
  for i in 1 2; do echo "gpu0 anti:1000000:16 binary: $($S skycube --generate anti:1000000:16 --template mdmc --devices gpu0 --format binary --output $d/a16.bin 2>&1 | tail -1)"; done > $out/hashcube.txt; el "hashcube done"; cat $out/hashcube.txt
  ;;
esac
case $phase in
hc)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null && cmake --build $b/new -j 12 --target sextant_cli hash_cube_bench ) > $out/build-new.log 2>&1 &
  ( cmake -S $root/.bench/base-899a237 -B $b/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build $b/old -j 4 --target sextant_cli ) > $out/build-old.log 2>&1
  el "old build rc=$?"; wait; el "new build done"; grep -E "error|FAILED" $out/build-*.log | head -20
  S=$b/new/apps/sextant
  for i in 1 2 3; do for v in old new; do echo "$v window write: $($b/$v/apps/sextant window --type time --generate 20000000 --keys 1000 --length 10000 --slide 10000 --agg sum --output $d/wo-$v.csv 2>&1 | ph write)"; done; done > $out/window-write.txt; cat $out/window-write.txt; cmp $d/wo-old.csv $d/wo-new.csv && echo identical
  for i in 1 2; do echo "gpu0 anti:1000000:16 binary: $($S skycube --generate anti:1000000:16 --template mdmc --devices gpu0 --format binary --output $d/a16.bin 2>&1 | tail -1)"; done > $out/hashcube.txt; el "hashcube done"; cat $out/hashcube.txt
  timeout 200 $b/new/bench/skycube/hash_cube_bench --benchmark_filter='points:1000000/' --benchmark_out=$out/hash_cube_bench.json > $out/hash_cube_bench.txt 2>&1; el "bench rc=$?"; cat $out/hash_cube_bench.txt | tail -6
  ;;
esac
case $phase in
hc2)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null && cmake --build $b/new -j 16 --target sextant_cli hash_cube_bench ) > $out/build-new.log 2>&1
  el "new build done rc=$?"; grep -E "error|FAILED" $out/build-*.log | head -20
  S=$b/new/apps/sextant
  for i in 1 2; do echo "gpu0 anti:1000000:16 binary: $($S skycube --generate anti:1000000:16 --template mdmc --devices gpu0 --format binary --output $d/a16.bin 2>&1 | tail -1)"; done > $out/hashcube2.txt; el "hashcube done"; cat $out/hashcube2.txt
  timeout 150 $b/new/bench/skycube/hash_cube_bench --benchmark_filter='points:1000000/parts:[18]/threads:16' > $out/hash_cube_bench2.txt 2>&1; el "bench rc=$?"; tail -3 $out/hash_cube_bench2.txt
  ;;
esac
case $phase in
x2)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF >/dev/null && cmake --build $b/new -j 32 --target sextant_cli ) > $out/build-new.log 2>&1
  el "new build done rc=$?"; grep -E "error|FAILED" $out/build-*.log | head -20
  S=$b/new/apps/sextant; nvidia-smi -L
  for i in 1 2; do for dev in gpu0 gpu0,gpu1; do echo "$dev anti:1000000:16: $($S skycube --generate anti:1000000:16 --template mdmc --devices $dev --format binary --output $d/a16.bin 2>&1 | tail -1)"; done; done > $out/x2.txt; el "x2 done"; cat $out/x2.txt
  ;;
esac
case $phase in
hc3)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=ON >/dev/null && cmake --build $b/new -j 16 --target sextant_cli hash_cube_bench hash_cube_tests ) > $out/build-new.log 2>&1
  el "new build done rc=$?"; grep -E "error|FAILED" $out/build-*.log | head -20
  $(find $b/new/tests -name hash_cube_tests -type f | head -1) --gtest_brief=1 2>&1 | tail -1
  S=$b/new/apps/sextant
  for i in 1 2; do echo "gpu0 anti:1000000:16 binary: $($S skycube --generate anti:1000000:16 --template mdmc --devices gpu0 --format binary --output $d/a16.bin 2>&1 | tail -1)"; done > $out/hashcube3.txt; el "hashcube done"; cat $out/hashcube3.txt
  timeout 120 $b/new/bench/skycube/hash_cube_bench --benchmark_filter='points:1000000/parts:1/threads:16/keys:(0|4096)/' > $out/hash_cube_bench3.txt 2>&1; el "bench rc=$?"; grep from_parts $out/hash_cube_bench3.txt
  ;;
esac
case $phase in
hc4)
  ( cmake -S $root -B $b/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON -DSEXTANT_BUILD_TESTS=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build $b/new -j 16 --target sextant_cli ) > $out/build-new.log 2>&1
  el "new build done rc=$?"; grep -E "error|FAILED" $out/build-*.log | head -20
  S=$b/new/apps/sextant
  for i in 1 2; do echo "gpu0 anti:1000000:16 binary: $($S skycube --generate anti:1000000:16 --template mdmc --devices gpu0 --format binary --output $d/a16.bin 2>&1 | tail -1)"; done > $out/hashcube4.txt; el "hashcube done"; cat $out/hashcube4.txt
  ;;
esac

#!/bin/bash
# Session 33 scratch: where the dense layout beats per-key structures (policy::stream_dense_min_fill).
# Grid: keys x tuples per pane (pane = slide = 10 ms) x window length (10 or 100 panes) x stage.
# Usage: KEYS="10000 100000" s33-grid.sh ; BUILD=1 builds /tmp/new-b first.
out=${OUT:-/tmp/out}; mkdir -p $out
if [ -n "$BUILD" ]; then
  rm -rf /tmp/new-src && mkdir -p /tmp/new-src && tar -c --exclude=./.bench --exclude=./.git . | tar -x -C /tmp/new-src
  cmake -S /tmp/new-src -B /tmp/new-b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_TESTS=OFF > /dev/null && timeout 400 cmake --build /tmp/new-b -j 16 --target sextant_cli > /tmp/new-b.log 2>&1; echo "build rc=$?"
fi
for k in ${KEYS:-10000 100000 1000000 4000000}; do for tpp in ${TPP:-2000 10000 50000 250000}; do for len in ${LENS:-100000 1000000}; do
  rate=$(python3 -c "print($tpp/1e4)")
  n=$(python3 -c "print(min(33554432, $tpp*150))")
  for st in ${STAGES:-auto dense scan bpat}; do
    echo "== keys $k tpp $tpp len $len stage $st n $n"
    /usr/bin/time -f maxrss_kb=%M timeout 60 /tmp/new-b/apps/sextant window --generate $n --rate $rate --keys $k --type time --length $len --slide 10000 --agg sum --order fire --window-stage $st --output - 2>&1 >/dev/null | tail -2
  done
done; done; done

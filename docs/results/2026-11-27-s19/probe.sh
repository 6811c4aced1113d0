set -u
which perf || echo "no perf"
B=.bench/bins
for rep in 1 2 3; do
  for t in old new; do
    for thr in 16 1; do
      echo "== $t threads $thr #$rep: $($B/st_$t --device cpu --experiment batch --tuples 4194304 --repeats 3 --threads $thr --csv /tmp/st.csv 2>&1 | grep -E '^batch +W=1s' | awk '{printf "%s:%s/%s  ", $3, $13, $15}')"
    done
    echo "== $t passive16 #$rep: $(OMP_WAIT_POLICY=passive $B/st_$t --device cpu --experiment batch --tuples 4194304 --repeats 3 --csv /tmp/st.csv 2>&1 | grep -E '^batch +W=1s' | awk '{printf "%s:%s/%s  ", $3, $13, $15}')"
  done
done

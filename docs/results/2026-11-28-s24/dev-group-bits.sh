#!/usr/bin/env bash
# points_per_group / max_group_bits sweep, one core, interleaved rounds.
for r in 1 2 3; do
  for cfg in "16 12" "32 12" "64 12" "16 10"; do
    set -- $cfg
    for w in "anti 12 200000" "anti 8 1000000" "anti 4 1000000" "indep 8 1000000"; do
      set -- $cfg $w
      echo "ppg $1 mgb $2 $(SX_PPG=$1 SX_MGB=$2 taskset -c 1 /tmp/sb_ppg --dists $3 --n $5 --d $4 --threads 1 --repeats 5 | tail -1)"
    done
    set -- $cfg
    for t in sdsc stsc; do
      line=$(SX_PPG=$1 SX_MGB=$2 taskset -c 1 /tmp/sx_ppg skycube --generate anti:100000:8 --template $t --threads 1 --output /tmp/ppg-cube-$t-$1-$2.txt 2>&1 | tail -1)
      echo "ppg $1 mgb $2 skycube $t anti 100k x 8: $(echo "$line" | grep -o 'extended skyline [0-9.]* s, lattice [0-9.]* s')"
    done
  done
done

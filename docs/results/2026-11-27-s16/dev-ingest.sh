#!/bin/bash
# usage: ab.sh rounds label=cmdprefix ...   prints per-label load times and median
rounds=$1; shift
declare -A res
for i in $(seq $rounds); do
  for spec in "$@"; do
    label=${spec%%=*}; cmd=${spec#*=}
    if [ "$label" = wc ]; then
      t=$( { /usr/bin/time -f "%e" wc -l /tmp/ing/s.csv >/dev/null; } 2>&1 )
    else
      t=$(env $cmd window --type time --input /tmp/ing/s.csv --length 100000 --slide 100000 --agg sum --output - 2>&1 >/dev/null | grep -oE "load [0-9.]+" | cut -d' ' -f2)
    fi
    res[$label]="${res[$label]} $t"
  done
done
for spec in "$@"; do label=${spec%%=*}; v=${res[$label]}; med=$(echo $v | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'); echo "$label: median $med  [$v ]"; done

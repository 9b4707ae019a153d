#!/bin/bash
# A/B of table-level MultiGet: alternating binaries, floor measured in each run.
# usage: mg_ab.sh rounds out label=binary...
rounds=$1; out=$2; shift 2
: > $out
for r in $(seq $rounds); do
  for spec in "$@"; do
    label=${spec%%=*}; bin=${spec#*=}
    $bin --benchmark_filter="${FILTER:-MultiGet/(ours_loaded|one_read_floor)/}" --benchmark_min_time=${MINTIME:-0.5} --benchmark_format=csv 2>/dev/null \
      | grep -E '^"' | sed "s/^/$label,$r,/" >> $out
  done
done

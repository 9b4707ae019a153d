#!/bin/bash
# A/B two db_bench binaries on the 20M-key ours DB: absent and present, 1 thread
base="--db=/tmp/l20b/db/ours --num=20000000 --value_size=100 --key_size=16 --prefix_size=8 --compression_type=none --disable_auto_compactions=1 --disable_wal=1 --progress_reports=false --options_file=/tmp/l20b/t-logs/ours.options --threads=${T:-1} --reads=1000000 --seed=1000 --use_existing_db=1 --benchmarks=readtocache,readrandom,readrandom"
for r in 1 2 3; do
  for b in "$@"; do
    for kpp in 0 1; do
      ops=$(/tmp/db_bench_$b $base --keys_per_prefix=$kpp 2>/dev/null | grep '^readrandom' | tail -1 | awk '{print $5}')
      echo "$r $b $([ $kpp = 0 ] && echo absent || echo present) $ops"
    done
  done
done

#!/usr/bin/env bash
# Reads of one CuckooHashTable DB through two db_bench builds of RocksDB
# 11.8.1 with the plugin in-tree, alternating: A = -fPIC
# -fno-semantic-interposition (setup.sh's build since this stop), B = the
# same make arguments without them. readrandom, 1 thread, 1M keys (16-byte
# keys, 100-byte values), the DB written once by A (fillrandom, compact).
#   pic_read_ab.sh <db_bench A> <db_bench B> <OPTIONS file naming CuckooHashTable> <db dir> [reps]
set -euo pipefail
a=$1 b=$2 options=$3 db=$4 reps=${5:-5}
common=(--num=1000000 --key_size=16 --value_size=100 --options_file="$options"
  --db="$db" --threads=1)
for ((i = 1; i <= reps; i++)); do
  for side in A B; do
    bin=$a
    [ "$side" = B ] && bin=$b
    rate=$("$bin" --benchmarks=readrandom --use_existing_db=1 --reads=2000000 \
      "${common[@]}" 2>&1 | awk '/^readrandom/ { print $5 }')
    echo "rep $i $side readrandom_ops_per_sec $rate"
  done
done

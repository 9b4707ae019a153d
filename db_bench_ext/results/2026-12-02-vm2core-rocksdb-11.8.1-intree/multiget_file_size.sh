#!/bin/bash
# DB-level multireadrandom (batch 32) of ours and the built-in CuckooTable
# with RocksDB's default 64 MiB files (2 files in L1 at 1M keys) and with one
# file per level (target_file_size_base 1 GiB), the same options for both.
# usage: multiget_file_size.sh <ours.options from db_bench_compare's logs> <rounds> <threads>
set -e
OPTS=$1; ROUNDS=${2:-5}; T=${3:-1}
DB=~/.cache/rocksdb-cuckoo/rocksdb-11.8.1-intree/db_bench
W=/tmp/files_ab; mkdir -p $W
sed 's/target_file_size_base=67108864/target_file_size_base=1073741824/' "$OPTS" > $W/ours_big.options
cp "$OPTS" $W/ours.options
COMMON="--num=1000000 --value_size=100 --key_size=16 --prefix_size=8 --keys_per_prefix=1 --compression_type=none --disable_auto_compactions=1 --level0_slowdown_writes_trigger=1000000 --level0_stop_writes_trigger=1000000 --disable_wal=1 --progress_reports=false --seed=7"
load() { # name flags...
  [ -d $W/$1 ] && return; n=$1; shift
  $DB --benchmarks=fillseq,compact,levelstats --db=$W/$n $COMMON --threads=1 --use_existing_db=0 "$@" | grep -A3 "Level Files" | tail -1 | sed "s/^/$n L1 files+MB: /"
}
load ours64 --options_file=$W/ours.options
load cuckoo64 --use_cuckoo_table --mmap_read=1
load ours1g --options_file=$W/ours_big.options
load cuckoo1g --use_cuckoo_table --mmap_read=1 --target_file_size_base=1073741824
R="--use_existing_db=1 --multiread_batched=1 --batch_size=32 --reads=1000000 --threads=$T"
rate() { # db flags... -> Mops/s of the second (timed) pass
  $DB --benchmarks=${PRE}multireadrandom,multireadrandom --db=$W/$1 $COMMON $R "${@:2}" 2>&1 | grep "^multireadrandom" | tail -1 | awk '{print $5/1e6}'
}
for r in $(seq $ROUNDS); do
  PRE=readtocache, ; o64=$(rate ours64 --options_file=$W/ours.options); o1=$(rate ours1g --options_file=$W/ours_big.options)
  PRE= ; c64=$(rate cuckoo64 --use_cuckoo_table --mmap_read=1); c1=$(rate cuckoo1g --use_cuckoo_table --mmap_read=1)
  echo "round $r threads $T: 64MiB ours $o64 cuckoo $c64 ratio $(echo "$o64 / $c64" | bc -l | cut -c1-5)  1GiB ours $o1 cuckoo $c1 ratio $(echo "$o1 / $c1" | bc -l | cut -c1-5)"
done

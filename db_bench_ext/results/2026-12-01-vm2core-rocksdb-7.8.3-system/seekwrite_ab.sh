#!/bin/bash
# seekrandomwhilewriting (one reader: a new iterator, a seek and 10 Next;
# one writer), the flags memtable_compare.py --workloads=seekwrite uses, for
# the skip list and three builds of the library, in turns, $1 rounds:
#   flat     writer flat out, 64 MiB memtables that flush, compactions on
#   rate20   writer held to 20 MB/s, the same
#   noflush  writer flat out into one 4 GiB memtable that never flushes
# Usage: seekwrite_ab.sh ROUNDS BASE_LIB MID_LIB NEW_LIB (Debian's db_bench 7.8.3)
rounds=$1
declare -A libs=([base]=$2 [mid]=$3 [new]=$4)
for r in $(seq "$rounds"); do
  for mode in flat rate20 noflush; do
    case $mode in
      flat) rate=0; wbs=$((64 << 20)) ;;
      rate20) rate=20000000; wbs=$((64 << 20)) ;;
      noflush) rate=0; wbs=$((4 << 30)) ;;
    esac
    for v in skip base mid new; do
      rep=striped_hash; lib=${libs[$v]:-$4}
      [ "$v" = skip ] && rep=skip_list
      db=/tmp/seekwrite_ab_db; rm -rf "$db"
      out=$(LD_PRELOAD=$lib db_bench --db=$db --memtablerep=$rep \
        --benchmarks=seekrandomwhilewriting --key_size=16 --value_size=100 \
        --disable_wal=1 --compression_type=none --disable_auto_compactions=0 \
        --max_write_buffer_number=2 --seed=42 --histogram=0 --statistics=1 \
        --num=2000000 --duration=8 --seek_nexts=10 --threads=1 \
        --write_buffer_size=$wbs --benchmark_write_rate_limit=$rate \
        --stats_dump_period_sec=1 2>/dev/null)
      seeks=$(echo "$out" | grep -oE "[0-9]+ ops/sec" | head -1 | cut -d' ' -f1)
      writes=$(echo "$out" | grep -oE "keys.written COUNT : [0-9]+" | awk '{print $4}')
      echo "round=$r mode=$mode $v seeks=$seeks writes=$writes"
    done
  done
done

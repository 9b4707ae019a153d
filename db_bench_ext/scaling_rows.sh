#!/usr/bin/env bash
# Every thread-scaling row in one go, for a machine with more cores than
# this project's 2-core VM: the striped counters, the striped_hash
# memtable's concurrent inserts (through db_bench and on the rep alone) and
# its Get, AsyncExecutorEnv's throughput, latency, add+cancel and snooze,
# db_bench fillrandom's stalls on it, and the tables' point reads at 1, 4
# and 16 threads and at 20M keys; about 12 minutes on 16 cores. Most
# important first: a time limit cuts the least important.
#
#   db_bench_ext/scaling_rows.sh [<out-folder>] <in-tree build folder | bundle>
#
# The last argument is an in-tree build folder (build-intree-9.10.0) or a
# portable bundle made from one (BUILD_DIR=build-intree-9.10.0
# db_bench_ext/make_portable_bundle.sh <bundle>). Each step's report goes
# to <out-folder>/<step>.txt, by default this run's folder
# db_bench_ext/results/<date>-<machine>-<build>/ (run_folder.py; the machine
# is $CUCKOO_MACHINE, else vm<nproc>core), and each step's command into
# the folder's COMMAND.md; a step that fails or runs out of time is noted
# and the next one runs. STEP_SECONDS (default 150) bounds each step;
# STEPS="counters memtable_get ..." runs only the steps it names.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: $0 [<out-folder>] <build-or-bundle>"
if [ $# -eq 1 ]; then
  src=$(cd "$1" && pwd) || exit 2
  out=$(python3 "$here/run_folder.py" --create "$src") || exit 2
else
  out=$(mkdir -p "${1:?$usage}" && cd "$1" && pwd) || exit 2
  src=$(cd "${2:?$usage}" && pwd) || exit 2
fi
limit=${STEP_SECONDS:-150}
export PYTHONUNBUFFERED=1  # a step cut short still shows its finished runs
# Scratch (a bundle's stand-in build folder, fillrandom's DBs and executor
# statistics) stays out of the out-folder.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/scaling_rows.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

record() {  # record <files> <command...>: one line of COMMAND.md
  local files=$1
  shift
  python3 "$here/run_folder.py" --record "$out" --files "$files" \
    --command "$*"
}
record machine.txt "$(printf '%q ' env STEPS="${STEPS:-}" \
  STEP_SECONDS="$limit" "$here/scaling_rows.sh" "$@")"

if [ -x "$src/bin/db_bench" ]; then
  db_bench=$src/bin/db_bench
  # A bundle: the harnesses find the tools through an in-tree build
  # folder's CMake cache, so give them one that points at the bundle.
  bin=$src/bin
  build=$scratch/bundle-build
  mkdir -p "$build"
  echo "CUCKOO_INTREE_ROCKSDB:PATH=$bin" >"$build/CMakeCache.txt"
else
  build=$src
  bin=$src/db_bench_ext
  db_bench=$(sed -n 's/^CUCKOO_INTREE_ROCKSDB:PATH=//p' "$build/CMakeCache.txt")/db_bench
fi

step() {  # step <name> <command...>
  local name=$1 start=$SECONDS
  shift
  if [ -n "${STEPS:-}" ] && [[ " $STEPS " != *" $name "* ]]; then return; fi
  echo "== $name: $*"
  record "$name.txt" "$(printf '%q ' timeout "$limit" "$@")"
  timeout "$limit" "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.txt"
  echo "== $name: exit $rc after $((SECONDS - start)) s"
}

{
  echo "CPUs: $(nproc); last-level caches seen in sysfs:" \
    "$(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | wc -l)"
  grep -m1 'model name' /proc/cpuinfo
  echo "L3: $(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null)," \
    "memory: $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)"
  date -u
} | tee "$out/machine.txt"

step counters "$bin/stats_update_bench" --threads=1,2,4,8,16 --repeats=3 \
  --ops_per_thread=1000000
step memtable_rep_scaling env MEMTABLE_REP_BENCH_N=2000000 \
  "$bin/memtable_rep_bench" --benchmark_filter=ConcurrentFill \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
step memtable_insert python3 "$here/memtable_compare.py" --build "$build" \
  --workloads=insert --insert_threads=1,2,4,8,16 --repeats=3
step memtable_insert_unordered python3 "$here/memtable_compare.py" \
  --build "$build" --workloads=insert --insert_threads=16 --repeats=3 \
  --extra="--enable_pipelined_write=false --unordered_write=true"
# Where 16 concurrent writers' time goes, from RocksDB's perf context:
# inserting into the memtable, or waiting in the write thread (write groups,
# the pipelined writer's hand-offs). db_bench keeps one thread's perf context,
# so the figures are per write of that thread, next to the time a write
# takes each thread (threads / total rate).
insert_profile() {
  local rep path mode db=${TMPDIR:-/tmp}/scaling_rows_profile
  local threads=16 writes=62500  # a million writes in all
  for path in "" "--enable_pipelined_write=false --unordered_write=true"; do
    mode=pipelined
    [ -n "$path" ] && mode=unordered_write
    for rep in skip_list striped_hash; do
      rm -rf "$db"
      # shellcheck disable=SC2086  # $path is a list of flags
      "$db_bench" --db="$db" --memtablerep="$rep" --benchmarks=fillrandom \
        --num=1000000 --writes=$writes --threads=$threads --seed=42 --disable_wal=1 \
        --compression_type=none --disable_auto_compactions=1 \
        --write_buffer_size=1073741824 --allow_concurrent_memtable_write=true \
        --enable_write_thread_adaptive_yield=true --perf_level=3 $path \
        2>/dev/null | awk -v label="$rep $mode" -v threads=$threads -v writes=$writes '
          /^fillrandom/ { rate = $5 }
          { for (i = 1; i < NF; i++) if ($(i + 1) == "=") v[$i] = $(i + 2) }
          END {
            printf "%-28s %9.0f ops/s; per write of one thread: %6.0f ns in all, memtable %6.0f ns, write-thread wait %6.0f ns\n",
              label, rate, threads * 1e9 / rate, v["write_memtable_time"] / writes,
              v["write_thread_wait_nanos"] / writes }'
    done
  done
  rm -rf "$db"
}

export db_bench
export -f insert_profile
step insert_profile bash -c insert_profile
step executor_throughput "$bin/executor_bench" --benchmarks=throughput \
  --producers=1,2 --workers=2,8 --runs=9 --jobs=300000 --print_stats=false
step executor_latency_steady "$bin/executor_bench" --benchmarks=latency \
  --producers=1 --workers=2,8 --runs=3 --latency_gap_us=20 --print_stats=false
step executor_latency_idle "$bin/executor_bench" --benchmarks=latency \
  --producers=1 --workers=2,8 --runs=3 --latency_gap_us=200 \
  --latency_jobs=5000 --print_stats=false
step executor_latency_burst "$bin/executor_bench" --benchmarks=latency \
  --producers=1 --workers=2,8 --runs=3 --latency_gap_us=200 \
  --latency_burst=16 --latency_jobs=40000 --print_stats=false
step executor_timers "$bin/executor_bench" --benchmarks=addcancel,snooze \
  --producers=1,2 --runs=5 --print_stats=false
step memtable_get python3 "$here/memtable_compare.py" --build "$build" \
  --workloads=get --repeats=7
step fillrandom_stalls python3 "$here/executor_db_bench.py" --build "$build" \
  --runs=5 --out_dir "$scratch/executor_db_bench"
step tables python3 "$here/db_bench_compare.py" --build "$build" \
  --make_options_file "$bin/make_options_file" \
  --num 1000000 --reads 300000 --reps 3 --threads 1,4,16 \
  --formats ours,cuckoo,plain,block,ours_id,cuckoo_id \
  --workloads get,get_absent,multiget32 --out "$out/table_formats"
# Larger than the last-level cache: 20M keys (2.5 GB of tables per format),
# where a tuned BlockBasedTable's filters and ours alike miss the cache on
# every lookup. Each format is loaded once; the reads repeat.
step tables_large python3 "$here/db_bench_compare.py" --build "$build" \
  --make_options_file "$bin/make_options_file" \
  --num 20000000 --reads 1000000 --reps 3 --load_once --threads 1,16 \
  --formats ours,block,ours_id,cuckoo_id --workloads get,get_absent \
  --db_dir "${TMPDIR:-/tmp}/scaling_rows_large" --out "$out/table_formats_20M"

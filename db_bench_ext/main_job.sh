#!/usr/bin/env bash
# The main job (./setup.sh main): writes a DB through
# table_factory={id=CuckooHashTable;...}, reads every value back, and compares
# it side by side with RocksDB's CuckooTable, PlainTable and BlockBasedTable
# on the same data. Extra arguments go to table_compare (--help lists them);
# BUILD_DIR picks the build (default ./build). Raw numbers land in
# bench-out/table_compare.csv.
# Then a short pass of db_bench_compare.py: the same comparison through the
# stock db_bench with the plugin preloaded, or, for an in-tree build
# (BUILD_DIR=build-intree-<version>), that RocksDB release's own db_bench (its
# report, CSV and plot land in bench-out/db_bench_compare_short.*; run the
# script alone for the full run).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build}
bin="$build/db_bench_ext/table_compare"
if [ ! -x "$bin" ]; then
  echo "main_job: $bin is missing; build first (./setup.sh)" >&2
  exit 1
fi

mkdir -p bench-out
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
# An in-tree build names the RocksDB tree it was linked with.
intree=$(sed -n 's/^CUCKOO_INTREE_ROCKSDB:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ -n "$intree" ]; then
  rocksdb="in-tree $(basename "$intree") (release build, plugin compiled in)"
else
  rocksdb="system librocksdb $(dpkg-query -W -f='${Version}' librocksdb-dev 2>/dev/null || echo unknown)"
fi
echo "main_job: $(nproc) cores ($cpu), $rocksdb"

start=$SECONDS
# 300k keys (table_compare's own default is 1M) keep the whole job, with the
# pass below, under 3 minutes on 2 busy cores; "$@" may override.
"$bin" --db_dir=bench-out/db --csv=bench-out/table_compare.csv --num=300000 \
  --reads=300000 "$@"
rmdir bench-out/db 2>/dev/null || true  # empty unless --keep_db

echo "main_job: db_bench_compare, short pass"
db_bench_ext/db_bench_compare.py --build="$build" --num=100000 --reads=50000 \
  --reps=3 --out=bench-out/db_bench_compare_short
echo "main_job: done in $((SECONDS - start)) s"

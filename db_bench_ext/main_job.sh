#!/usr/bin/env bash
# The main job (./setup.sh main): writes a DB through
# table_factory={id=CuckooHashTable;...}, reads every value back, and compares
# it side by side with RocksDB's CuckooTable, PlainTable and BlockBasedTable
# on the same data. Extra arguments go to table_compare (--help lists them);
# BUILD_DIR picks the build (default ./build). Raw numbers land in
# bench-out/table_compare.csv.
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
rocksdb=$(dpkg-query -W -f='${Version}' librocksdb-dev 2>/dev/null || echo unknown)
echo "main_job: $(nproc) cores ($cpu), librocksdb $rocksdb"

start=$SECONDS
"$bin" --db_dir=bench-out/db --csv=bench-out/table_compare.csv "$@"
rmdir bench-out/db 2>/dev/null || true  # empty unless --keep_db
echo "main_job: done in $((SECONDS - start)) s"

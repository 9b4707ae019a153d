#!/usr/bin/env bash
# db_bench_ext memory mode: the same write+read workload (memory_workload)
# in a fresh process per allocator setting and configuration, repeated, then
# a table of medians and ratios to glibc malloc, a CSV and a PNG.
#
#   db_bench_ext/memory_mode.sh [--reps=N] [--out=DIR | --results]
#       [--setting='LABEL|PRELOAD(0/1)|MALLOC_CONF|malloc or arena' ...]
#       [-- memory_workload flags]
#
# Settings (each with config=stock and config=ours):
#   glibc                glibc malloc
#   jemalloc             LD_PRELOAD=libjemalloc.so.2, jemalloc's defaults
#   jemalloc_bg          ... MALLOC_CONF=background_thread:true
#   jemalloc_thp_auto    ... MALLOC_CONF=metadata_thp:auto
#   jemalloc_thp_always  ... MALLOC_CONF=metadata_thp:always
#   jemalloc_arena       jemalloc's defaults, block cache on
#                        JemallocArenaAllocator
#   tools_default        what db_bench_ext/with_jemalloc.sh applies (the
#                        chosen defaults) and its block cache allocator
#   tools_default_arena  the same MALLOC_CONF, block cache on
#                        JemallocArenaAllocator
#   --setting=...        more, e.g. --setting='decay1s|1|dirty_decay_ms:1000|malloc'
# Every repetition runs all settings in a rotated order, so they share the
# machine's noise. BUILD_DIR picks the build (default ./build). Output:
# <out>/memory_runs.csv (every run), memory_summary.csv, memory_mode.png;
# --results writes them into this run's folder,
# db_bench_ext/results/<date>-<machine>-<build>/ (run_folder.py), and the
# command line into its COMMAND.md.
set -euo pipefail
cd "$(dirname "$0")/.."

reps=3
out=bench-out/memory
results=0
command=$(printf '%q ' db_bench_ext/memory_mode.sh "$@")
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps=*) reps=${1#--reps=} ;;
    --out=*) out=${1#--out=} ;;
    --results) results=1 ;;
    --setting=*) extra+=("${1#--setting=}") ;;
    --) shift; break ;;
    *) echo "memory_mode: unknown argument $1 (workload flags go after --)" >&2
       exit 2 ;;
  esac
  shift
done

build=${BUILD_DIR:-build}
bin="$build/db_bench_ext/memory_workload"
if [[ ! -x "$bin" ]]; then
  echo "memory_mode: $bin is missing; build first (./setup.sh)" >&2
  exit 1
fi
jemalloc=$(db_bench_ext/with_jemalloc.sh --print-library)
if [[ -z "$jemalloc" ]]; then
  echo "memory_mode: libjemalloc.so.2 not found (apt-get install libjemalloc2)" >&2
  exit 1
fi
tools_conf=$(db_bench_ext/with_jemalloc.sh --print-conf)
tools_allocator=$(db_bench_ext/with_jemalloc.sh --print-cache-allocator)

# label | preload jemalloc | MALLOC_CONF | block cache allocator
settings=(
  "glibc|0||malloc"
  "jemalloc|1||malloc"
  "jemalloc_bg|1|background_thread:true|malloc"
  "jemalloc_thp_auto|1|metadata_thp:auto|malloc"
  "jemalloc_thp_always|1|metadata_thp:always|malloc"
  "jemalloc_arena|1||arena"
  "tools_default|1|${tools_conf}|${tools_allocator}"
  "tools_default_arena|1|${tools_conf}|arena"
  ${extra[@]+"${extra[@]}"}
)

# Debian's python3 has python3-matplotlib; a python3 earlier in PATH may not.
python=/usr/bin/python3
[[ -x "$python" ]] || python=python3

db="$out/db"
if [[ "$results" == 1 ]]; then
  out=$("$python" db_bench_ext/run_folder.py --create "$build")
  db=bench-out/memory_mode_db  # scratch stays out of results/
  if [[ -n "${BUILD_DIR:-}" ]]; then
    command="BUILD_DIR=$(printf '%q' "$BUILD_DIR") $command"
  fi
  "$python" db_bench_ext/run_folder.py --record "$out" \
    --files memory_runs.csv,memory_summary.csv,memory_mode.png --command "$command"
fi
mkdir -p "$out"
runs="$out/memory_runs.csv"
rm -f "$runs"
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)
echo "memory_mode: $(nproc) cores, THP: $thp, $reps repetitions," \
     "${#settings[@]} settings x 2 configs"

start=$SECONDS
for ((rep = 0; rep < reps; rep++)); do
  for ((k = 0; k < ${#settings[@]}; k++)); do
    IFS='|' read -r label preload conf allocator \
      <<<"${settings[(k + rep) % ${#settings[@]}]}"
    for config in stock ours; do
      env=(env -u LD_PRELOAD -u MALLOC_CONF)
      [[ "$preload" == 1 ]] && env+=("LD_PRELOAD=$jemalloc")
      [[ -n "$conf" ]] && env+=("MALLOC_CONF=$conf")
      "${env[@]}" "$bin" --config="$config" --cache_allocator="$allocator" \
        --label="$label" --db="$db" --csv="$runs" "$@" |
        sed "s/^/[rep $((rep + 1))] /"
    done
  done
done
echo "memory_mode: $((SECONDS - start)) s of runs"

"$python" db_bench_ext/memory_mode_report.py --runs="$runs" --out="$out" \
  --tools_default="MALLOC_CONF=${tools_conf:-<jemalloc defaults>}, block cache on ${tools_allocator}"

#!/usr/bin/env bash
# Runs a command on jemalloc with the memory settings the tools use, chosen
# from db_bench_ext/memory_mode.sh's measurements (cache/README.md):
#
#   db_bench_ext/with_jemalloc.sh <command> [args...]
#
# preloads libjemalloc.so.2 and sets MALLOC_CONF to the default below unless
# the caller set MALLOC_CONF. Without libjemalloc.so.2 it runs the command
# as it is and says so. For scripts:
#   --print-library          path of libjemalloc.so.2 (empty if none)
#   --print-conf             the default MALLOC_CONF
#   --print-cache-allocator  the block cache allocator the tools use
#                            (arena: JemallocArenaAllocator, or malloc)
set -euo pipefail

# Why these (cache/README.md): purging freed pages after 1 s from a
# background thread instead of jemalloc's 10 s, and one arena per CPU instead
# of four, gave the lowest peak RSS and fragmentation without costing ops/s;
# metadata_thp raised RSS. The arena allocator for the block cache cost a
# little CPU and saved nothing here, so it is opt-in (dontdump, isolation).
default_conf="background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0,percpu_arena:percpu"
cache_allocator="malloc"

library() {
  local path
  path=$(/sbin/ldconfig -p 2>/dev/null |
    awk '$1 == "libjemalloc.so.2" && /x86-64|x86_64/ { print $NF; exit }')
  [[ -z "$path" && -e /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ]] &&
    path=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
  echo "$path"
}

case "${1:-}" in
  --print-library) library; exit 0 ;;
  --print-conf) echo "$default_conf"; exit 0 ;;
  --print-cache-allocator) echo "$cache_allocator"; exit 0 ;;
  "" | -h | --help)
    awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
    exit 2 ;;
esac

jemalloc=$(library)
if [[ -z "$jemalloc" ]]; then
  echo "with_jemalloc: libjemalloc.so.2 not found; running on the default malloc" >&2
  exec "$@"
fi
export LD_PRELOAD="${jemalloc}${LD_PRELOAD:+:$LD_PRELOAD}"
export MALLOC_CONF="${MALLOC_CONF-$default_conf}"
exec "$@"

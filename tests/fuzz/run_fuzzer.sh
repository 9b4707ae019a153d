#!/usr/bin/env bash
# Runs the CuckooHashTable reader fuzzer (tests/fuzz/cuckoo_table_fuzzer.cc).
#
#   tests/fuzz/run_fuzzer.sh [--seconds N] [--jobs J] [--bin DIR]
#       [--seeds DIR] [--corpus DIR] [--artifacts DIR] [-- libFuzzer flags]
#   tests/fuzz/run_fuzzer.sh --seeds-only [--seeds DIR]   # (re)write seeds
#   tests/fuzz/run_fuzzer.sh --replay PATH...   # run saved inputs once
#
# --bin is the folder with the built fuzzer and seed generator (default
# build-fuzz/tests/fuzz). Seeds are generated there when missing; new
# inputs go to --corpus (default build-fuzz/fuzz-corpus, git-ignored), the
# seeds are never written. Crash inputs land in --artifacts; exit status is
# libFuzzer's: non-zero when it found a crash, leak, timeout or OOM.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build-fuzz/tests/fuzz"
seconds=60
jobs=1
seeds=""
corpus=""
artifacts=""
mode=run
replay=()
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --artifacts) artifacts=$2; shift 2 ;;
    --seeds-only) mode=seeds; shift ;;
    --replay) mode=replay; shift
      while [[ $# -gt 0 && $1 != --* ]]; do replay+=("$1"); shift; done ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
fuzzer="$bin/cuckoo_table_fuzzer"
seeds=${seeds:-$bin/seeds}
corpus=${corpus:-$top/build-fuzz/fuzz-corpus}
artifacts=${artifacts:-$(dirname "$corpus")/fuzz-artifacts}

make_seeds() {
  rm -rf "$seeds"
  mkdir -p "$seeds"
  "$bin/cuckoo_fuzz_make_seeds" "$seeds"
}

# Leaks are reader bugs too; RocksDB's own singletons stay reachable.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

case $mode in
  seeds)
    make_seeds
    exit 0 ;;
  replay)
    inputs=()
    for p in "${replay[@]}"; do
      if [[ -d $p ]]; then
        while IFS= read -r -d '' f; do inputs+=("$f"); done \
          < <(find "$p" -type f ! -name '*.md' -print0 | sort -z)
      elif [[ -f $p ]]; then
        inputs+=("$p")
      fi
    done
    echo "replaying ${#inputs[@]} inputs"
    [[ ${#inputs[@]} -eq 0 ]] && exit 0
    exec "$fuzzer" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" ;;
esac

[[ -d $seeds ]] || make_seeds
mkdir -p "$corpus" "$artifacts"
flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
       -print_final_stats=1 -artifact_prefix="$artifacts/")
if [[ $jobs -gt 1 ]]; then
  flags+=(-fork="$jobs" -ignore_crashes=0)
fi
echo "fuzzing for ${seconds}s: corpus $corpus, seeds $seeds, crashes to $artifacts/"
exec "$fuzzer" "${flags[@]}" "${extra[@]}" "$corpus" "$seeds"

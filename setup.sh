#!/usr/bin/env bash
# Sets up everything rocksdb-cuckoo needs on a fresh Debian bookworm machine and
# builds it.  Safe to run any number of times: each step checks before it acts.
#
#   ./setup.sh          install packages, fetch RocksDB's headers, build (release)
#   ./setup.sh main     ... then run the main job (write/read a DB, side-by-side table)
#   ./setup.sh test     ... then build the ASan+UBSan configuration too and run ctest on both
#   ./setup.sh tsan     ... build the TSan configuration and run the concurrent tests
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)
deps="$top/.deps"          # git-ignored cache: RocksDB source headers
jobs=${JOBS:-$(nproc)}

packages=(build-essential cmake ninja-build pkg-config dpkg-dev
  librocksdb-dev rocksdb-tools libgflags-dev libgtest-dev libgmock-dev
  libbenchmark-dev libjemalloc-dev libsnappy-dev liblz4-dev libzstd-dev
  libbz2-dev zlib1g-dev liburing-dev python3 python3-matplotlib)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# RocksDB's internal headers (table/table_reader.h, ...) are not in librocksdb-dev;
# take them from Debian's source package of exactly the installed version, through a
# private deb-src list so that the machine's apt configuration is left untouched.
fetch_rocksdb_source() {
  local version
  version=$(dpkg-query -W -f='${Version}' librocksdb-dev)
  local stamp="$deps/rocksdb-src.version"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ] && [ -d "$deps/rocksdb-src/table" ]; then
    return 0
  fi
  echo "setup: fetching Debian source of rocksdb $version"
  rm -rf "$deps" && mkdir -p "$deps/apt/lists/partial" "$deps/apt/cache/archives/partial" "$deps/work"
  cat >"$deps/apt/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
SRC
  local aptopts=(-o Dir::Etc::SourceList="$deps/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$deps/apt/lists" -o Dir::Cache="$deps/apt/cache" -o APT::Sandbox::User=root)
  apt-get "${aptopts[@]}" update -qq
  (cd "$deps/work" && apt-get "${aptopts[@]}" source -qq --only-source "rocksdb=$version")
  local src
  src=$(find "$deps/work" -mindepth 1 -maxdepth 1 -type d -name 'rocksdb-*' | head -1)
  mv "$src" "$deps/rocksdb-src"
  rm -rf "$deps/work" "$deps/apt"
  echo "$version" >"$stamp"
}

configure_and_build() {   # $1 = build dir, rest = cmake args
  local dir=$1; shift
  cmake -S "$top" -B "$dir" -G Ninja -DROCKSDB_SOURCE_DIR="$deps/rocksdb-src" "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

install_packages
fetch_rocksdb_source
configure_and_build build -DCMAKE_BUILD_TYPE=Release

case "${1:-}" in
  "") ;;
  main) exec "$top/db_bench_ext/main_job.sh" ;;
  test)
    configure_and_build build-asan -DCMAKE_BUILD_TYPE=Debug -DCUCKOO_SANITIZE=address
    echo "== ctest: release =="
    (cd build && ctest --output-on-failure -j "$jobs")
    echo "== ctest: ASan+UBSan =="
    (cd build-asan && ctest --output-on-failure -j "$jobs")
    ;;
  tsan)
    configure_and_build build-tsan -DCMAKE_BUILD_TYPE=Debug -DCUCKOO_SANITIZE=thread
    (cd build-tsan && ctest --output-on-failure -j "$jobs" -L concurrent)
    ;;
  *) echo "usage: $0 [main|test|tsan]" >&2; exit 2 ;;
esac

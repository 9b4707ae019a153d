#!/usr/bin/env bash
# Sets up everything rocksdb-cuckoo needs on a fresh Debian bookworm machine and
# builds it.  Safe to run any number of times: each step checks before it acts.
#
#   ./setup.sh          install packages, fetch RocksDB's headers, build (release)
#   ./setup.sh main     ... then run the main job (write/read a DB, side-by-side table)
#   ./setup.sh test     ... then build the ASan+UBSan configuration too, run ctest
#                       on both, the fuzzer, and the suite, tools and db_stress
#                       against the in-tree release build of RocksDB 11.8.1
#   ./setup.sh tsan     ... build the TSan configuration and run the concurrent tests
#   ./setup.sh test-intree <version> [--source PATH]
#                       in-tree release build of RocksDB <version> (e.g.
#                       11.8.1, 10.10.1, 9.11.2, 9.10.0, 7.8.3), then the test
#                       suite, tools and db_stress against it
#   ./setup.sh intree [version] [--source PATH]
#                       build RocksDB's release configuration with the plugin
#                       in-tree (db_bench, ldb, sst_dump, db_stress), cached
#                       outside the clone; prints the folder holding the tools
#   ./setup.sh intree-bin-dir [version]
#                       only print that folder (builds nothing)
#   ./setup.sh java [version]
#                       RocksJava with the plugin compiled in, from the same
#                       in-tree build (default 11.8.1; 10.10.1 too), installed
#                       into the local Maven repository as
#                       org.rocksdb:rocksdbjni:<version>-cuckoo; then the Java
#                       and Kafka Streams tests (java/)
#   ./setup.sh rocksdb-tests [version]
#                       RocksDB's own unit tests (debug build, harness
#                       patched) with our table, memtable and Env against a
#                       baseline without them, then its crash test from the
#                       debug build (kill points, fault injection) and an
#                       ASan build (default version 11.8.1; tests/rocksdb)
#
# RocksDB's source for an in-tree build, the first found (intree_source):
# the cached tree; --source PATH (a release tarball .tar.gz or an unpacked
# source folder of exactly <version>); Debian's source package of the
# installed librocksdb-dev (7.8.3); rocksdb-<version>.tar.gz in
# $ROCKSDB_CUCKOO_DEPS (default ../shared/deps beside the clone: 10.10.1,
# 11.8.1), checked against its line in SHA256SUMS there; Debian's orig
# tarballs (9.10.0, 9.11.2; plugin/fetch_rocksdb_release.sh).
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)
deps="$top/.deps"          # git-ignored cache: RocksDB source headers
jobs=${JOBS:-$(nproc)}
# In-tree builds live outside the clone, so a fresh clone (CI) reuses them.
cache_root=${ROCKSDB_CUCKOO_CACHE:-$HOME/.cache/rocksdb-cuckoo}
intree_default_version=7.8.3
intree_tools=(db_bench ldb sst_dump db_stress)
# RocksDB's release build (-O2, NDEBUG, -fno-rtti). Static libraries (the
# Makefile's default LIB_MODE, forced by the static_lib goal): tools linked to
# a librocksdb.so would load Debian's system library, which has the same
# soname, instead of ours. PORTABLE=1 (no -march=native): the cache may be
# restored on another CPU, and GCC 12 fails 7.8.3's util/xxhash.cc with
# -Werror on AVX-512 machines (maybe-uninitialized in its own intrinsics).
# -g1 (line tables only, after the Makefile's -g): stack traces still name
# file and line, and a cold build is about a fifth faster than with full
# debug info (objects 6 times smaller), which keeps CI's first run in time.
# DISABLE_WARNING_AS_ERROR: GCC 12 (bookworm's) fails 10.10.1's own
# table/unique_id.cc under -Werror with a false -Wrestrict in std::string.
# -fPIC: the same objects also go into RocksJava's shared JNI library
# (./setup.sh java), so one compile of RocksDB serves the tools, our suite
# and Java; -fno-semantic-interposition keeps the inlining across global
# functions that -fPIC alone would give up.
pic_flags="-fPIC -fno-semantic-interposition"
intree_make_args=(DEBUG_LEVEL=0 PORTABLE=1 "OPTIMIZE_LEVEL=-O2 -g1"
  DISABLE_WARNING_AS_ERROR=1 ROCKSDB_PLUGINS=cuckoo
  "EXTRA_CXXFLAGS=$pic_flags" "EXTRA_CFLAGS=$pic_flags")
# RocksDB's unit tests and crash test with our parts (./setup.sh
# rocksdb-tests): a debug build (asserts, sync points, kill points, fault
# injection) in a tree of its own whose test harness is patched
# (tests/rocksdb/patch_test_tree.py), and an ASan build of db_stress.
debug_make_args=(DEBUG_LEVEL=1 LIB_MODE=static PORTABLE=1 "OPTIMIZE_LEVEL=-O2 -g1"
  DISABLE_WARNING_AS_ERROR=1 ROCKSDB_PLUGINS=cuckoo)
asan_make_args=("${debug_make_args[@]}" COMPILE_WITH_ASAN=1)
# The RocksDB release `./setup.sh test` builds in-tree (CI time allows one
# cold RocksDB build): the newest we support, from the release tarballs in
# $rocksdb_deps. 7.8.3 is covered there in system mode; the other in-tree
# builds are `./setup.sh test-intree <version>`.
ci_intree_version=11.8.1
# RocksDB release tarballs (rocksdb-<version>.tar.gz) and their SHA256SUMS,
# shared by the clones beside this one.
rocksdb_deps=$(realpath -m "${ROCKSDB_CUCKOO_DEPS:-$top/../shared/deps}")
# --source PATH of `intree` and `test-intree`: a tarball or source folder.
intree_user_source=""

packages=(build-essential cmake ninja-build pkg-config dpkg-dev
  librocksdb-dev rocksdb-tools libgflags-dev libgtest-dev libgmock-dev
  libbenchmark-dev libjemalloc-dev libsnappy-dev liblz4-dev libzstd-dev
  libbz2-dev zlib1g-dev liburing-dev python3 python3-matplotlib valgrind
  clang libclang-rt-14-dev openjdk-17-jdk-headless maven)

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
  local archive   # the Debian mirror the machine's apt uses
  archive=$("$top/plugin/debian_archive.sh")
  rm -rf "$deps" && mkdir -p "$deps/apt/lists/partial" "$deps/apt/cache/archives/partial" "$deps/work"
  echo "deb-src $archive bookworm main" >"$deps/apt/sources.list"
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

# $1 = build dir, $2 = targets (space-separated; empty: all), rest = cmake args
configure_and_build() {
  local dir=$1 targets=$2
  shift 2
  cmake -S "$top" -B "$dir" -G Ninja -DROCKSDB_SOURCE_DIR="$deps/rocksdb-src" "$@" >/dev/null
  # shellcheck disable=SC2086  # $targets is a list
  cmake --build "$dir" -j "$jobs" ${targets:+--target $targets}
}

# What the main job runs: table_compare, and db_bench_compare.py's preloaded
# library and OPTIONS-file writer.
main_targets="table_compare rocksdb_cuckoo make_options_file"

# `test` needs about 1.2 GB in the clone, 0.6 GB for the in-tree RocksDB
# cache and up to 0.5 GB of test data under $TMPDIR. A full disk shows up
# much later as a failed link or a failed test, so say it at the start.
warn_if_low_disk() {
  local dir free_mb
  mkdir -p "$cache_root"
  for dir in "$top" "$cache_root" "${TMPDIR:-/tmp}"; do
    [ -d "$dir" ] || continue
    free_mb=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
    if [ "$free_mb" -lt 2500 ]; then
      echo "setup: warning: $free_mb MB free under $dir; ./setup.sh test" \
        "needs about 2.3 GB" >&2
    fi
  done
}

intree_dir() { echo "$cache_root/rocksdb-$1-intree"; }
# Where the in-tree tools are: make writes them at the tree's root (beside
# tools/db_crashtest.py).
intree_bin_dir() { intree_dir "${1:-$intree_default_version}"; }

# The version a RocksDB source tree $1 declares (include/rocksdb/version.h).
tree_version() {
  awk '$1 == "#define" && $2 ~ /^ROCKSDB_(MAJOR|MINOR|PATCH)$/ { v[$2] = $3 }
    END { print v["ROCKSDB_MAJOR"] "." v["ROCKSDB_MINOR"] "." v["ROCKSDB_PATCH"] }' \
    "$1/include/rocksdb/version.h"
}

# Fails, saying why, unless tree $1 is RocksDB $2's source; $3 names where
# it came from.
check_tree() {
  local tree=$1 version=$2 origin=$3 found
  if [ ! -f "$tree/include/rocksdb/version.h" ]; then
    echo "setup: $origin holds no RocksDB source tree (no" \
      "include/rocksdb/version.h at its top)" >&2
    return 1
  fi
  found=$(tree_version "$tree")
  if [ "$found" != "$version" ]; then
    echo "setup: $origin is RocksDB $found, not $version" >&2
    return 1
  fi
}

# Unpacks RocksDB $3's tarball $1 (one top folder) into $2 and checks it;
# leaves nothing behind when either fails.
unpack_tarball() {
  mkdir -p "$2"
  if ! tar -xzf "$1" -C "$2" --strip-components=1 || ! check_tree "$2" "$3" "$1"; then
    rm -rf "$2"
    return 1
  fi
}

# Puts RocksDB $1's source at $2 (default intree_dir), once (the sources are listed at
# the top of this file). A cached tree is taken as it is: its marker
# .rocksdb_cuckoo_source (one line: where it came from) says setup.sh made it.
intree_source() {
  local version=$1 dir=${2:-$(intree_dir "$1")} tmp installed tarball sums
  local expected actual known
  if [ -f "$dir/.rocksdb_cuckoo_source" ]; then
    if [ -n "$intree_user_source" ]; then
      echo "setup: --source ignored: $dir already holds RocksDB $version" \
        "($(cat "$dir/.rocksdb_cuckoo_source")); remove it to use" \
        "$intree_user_source" >&2
    fi
    return 0
  fi
  if [ -e "$dir" ]; then
    echo "setup: $dir exists but was not made by setup.sh; remove it" >&2
    return 1
  fi
  tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  tarball="$rocksdb_deps/rocksdb-$version.tar.gz"
  sums="$rocksdb_deps/SHA256SUMS"
  installed=$(dpkg-query -W -f='${Version}' librocksdb-dev 2>/dev/null) || installed=""
  known=$("$top/plugin/fetch_rocksdb_release.sh" --versions)
  if [ -n "$intree_user_source" ]; then
    if [ -d "$intree_user_source" ]; then
      check_tree "$intree_user_source" "$version" "$intree_user_source" || return 1
      cp -a "$intree_user_source/." "$tmp" || { rm -rf "$tmp"; return 1; }
      echo "source folder $(realpath "$intree_user_source")" >"$tmp/.rocksdb_cuckoo_source"
    elif [ -f "$intree_user_source" ]; then
      case "$intree_user_source" in
        *.tar.gz|*.tgz) ;;
        *) echo "setup: --source $intree_user_source: not a .tar.gz" \
             "tarball nor a folder" >&2; return 1 ;;
      esac
      unpack_tarball "$intree_user_source" "$tmp" "$version" || return 1
      actual=$(sha256sum "$intree_user_source" | cut -d' ' -f1)
      echo "tarball $(realpath "$intree_user_source") (sha256 $actual)" \
        >"$tmp/.rocksdb_cuckoo_source"
    else
      echo "setup: --source $intree_user_source: no such file or folder" >&2
      return 1
    fi
  elif [ "${installed%%-*}" = "$version" ]; then
    fetch_rocksdb_source
    cp -a "$deps/rocksdb-src" "$tmp"
    echo "Debian source package rocksdb $installed" >"$tmp/.rocksdb_cuckoo_source"
  elif [ -f "$tarball" ]; then
    # A release tarball beside the clone: only with the checksum it was
    # published with, so that a truncated or swapped file never gets built.
    expected=$(awk -v f="${tarball##*/}" '$2 == f || $2 == "*" f { print $1; exit }' \
      "$sums" 2>/dev/null) || true
    if [ -z "$expected" ]; then
      echo "setup: $sums has no line for ${tarball##*/}; add its SHA-256" \
        "(sha256sum ${tarball##*/} >>SHA256SUMS, in $rocksdb_deps) once" \
        "you have checked the tarball" >&2
      return 1
    fi
    actual=$(sha256sum "$tarball" | cut -d' ' -f1)
    if [ "$actual" != "$expected" ]; then
      echo "setup: $tarball has SHA-256 $actual, but $sums says $expected;" \
        "replace the tarball (or the line)" >&2
      return 1
    fi
    echo "setup: unpacking $tarball (sha256 verified)"
    unpack_tarball "$tarball" "$tmp" "$version" || return 1
    echo "${tarball##*/} from $rocksdb_deps (sha256 $actual)" >"$tmp/.rocksdb_cuckoo_source"
  elif [[ " $known " == *" $version "* ]]; then
    # Releases bookworm does not ship: Debian's orig tarball, checked
    # against the signed index (trixie's 9.10.0, sid's 9.11.2).
    "$top/plugin/fetch_rocksdb_release.sh" "$version" "$tmp" \
      "$cache_root/debian-downloads"
  else
    cat >&2 <<MSG
setup: no source of RocksDB $version found. Looked for:
  - a cached tree: $dir
  - --source PATH (not given)
  - Debian's source package of the installed librocksdb-dev (${installed:-not installed})
  - $tarball, with its line in $sums
  - Debian's orig tarballs (only $known: plugin/fetch_rocksdb_release.sh)
RocksDB's release tarballs come from RocksDB's release page on GitHub (tag
v$version). Put it in $rocksdb_deps as rocksdb-$version.tar.gz and add its
line to SHA256SUMS there (or set ROCKSDB_CUCKOO_DEPS to another folder), or
pass the tarball or an unpacked source folder: --source PATH.
MSG
    return 1
  fi
  mv "$tmp" "$dir"
}

# The JDK RocksDB's Java build and Maven use: $JAVA_HOME, else the one javac
# belongs to (Debian's OpenJDK 17).
java_home() {
  if [ -n "${JAVA_HOME:-}" ]; then
    echo "$JAVA_HOME"
  else
    dirname "$(dirname "$(readlink -f "$(command -v javac)")")"
  fi
}

# RocksJava for RocksDB $1 with the plugin compiled in: the in-tree release
# build's own objects (position independent, see intree_make_args) linked
# into the JNI library by java/jni.mk, the jar installed into the local
# Maven repository as org.rocksdb:rocksdbjni:$1-cuckoo.
build_java() {
  local version=${1:-$ci_intree_version} dir lock jar start
  build_intree "$version"
  dir=$(intree_dir "$version")
  exec {lock}>"$dir.lock"
  flock "$lock"
  echo "setup: building RocksJava $version with the plugin (log: $dir/java.log)"
  start=$SECONDS
  JAVA_HOME=$(java_home) make_in_tree "$dir" "$dir/java.log" \
    -f Makefile -f plugin/cuckoo/java/jni.mk "${intree_make_args[@]}" \
    cuckoo_rocksjava || return 1
  exec {lock}>&-
  jar="$dir/java/target/rocksdbjni-$version-cuckoo.jar"
  JAVA_HOME=$(java_home) mvn -B -q install:install-file -Dfile="$jar" \
    -DgroupId=org.rocksdb -DartifactId=rocksdbjni -Dversion="$version-cuckoo" \
    -Dpackaging=jar -DgeneratePom=true
  echo "setup: RocksJava $version built in $((SECONDS - start))s; installed" \
    "as org.rocksdb:rocksdbjni:$version-cuckoo ($jar)"
}

# The Java tests of RocksJava $1 with the plugin and the Kafka Streams
# module's (JUnit 5 under Surefire; java/).
test_java() {
  local version=${1:-$ci_intree_version}
  cmake -S "$top/tests/java" -B "$top/build-java-$version" \
    -DROCKSDBJNI_VERSION="$version-cuckoo" >/dev/null
  (cd "$top/build-java-$version" && JAVA_HOME=$(java_home) \
    ctest --output-on-failure -L java)
}

# Builds RocksDB $1's release configuration with ROCKSDB_PLUGINS=cuckoo
# (intree_make_args) at intree_dir.
build_intree() {
  local version=${1:-$intree_default_version}
  build_tree "$version" "$(intree_dir "$version")" intree_make_args \
    static_lib "${intree_tools[@]}"
}

# Runs make with arguments ${@:3} in RocksDB tree $1, its output in log $2
# (the end of it shown when make fails). The caller's USE_RTTI, LIB_MODE and
# EXTRA_CXXFLAGS would change RocksDB's flags: the arguments say them.
make_in_tree() {
  local dir=$1 log=$2
  shift 2
  if ! (cd "$dir" && env -u USE_RTTI -u LIB_MODE -u EXTRA_CXXFLAGS \
      make -j "$jobs" "$@") >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "setup: build failed; see $log" >&2
    return 1
  fi
}

# Builds RocksDB $1 in folder $2 (its source put there once) with the make
# arguments in the array named $3, goals ${@:4}, the plugin in-tree.
# Re-running rebuilds only what changed: install_in_tree.sh rewrites only
# files whose content differs.
build_tree() {
  local version=$1 dir=$2 goals=("${@:4}") lock t start
  local -n make_args=$3
  mkdir -p "$cache_root"
  # One build per tree at a time (two clones may share the cache).
  exec {lock}>"$dir.lock"
  flock "$lock"
  intree_source "$version" "$dir"
  "$top/plugin/install_in_tree.sh" "$dir" >/dev/null
  # Objects do not depend on the make variables: start over when they change.
  local stamp="$dir/.rocksdb_cuckoo_make_args"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" != "${make_args[*]}" ]; then
    echo "setup: make arguments of $dir changed; rebuilding everything"
    (cd "$dir" && make clean >/dev/null 2>&1) || true
  fi
  echo "${make_args[*]}" >"$stamp"
  echo "setup: building RocksDB $version in $dir (log: $dir/make.log)"
  start=$SECONDS
  make_in_tree "$dir" "$dir/make.log" "${make_args[@]}" "${goals[@]}" || return 1
  for t in "${goals[@]}"; do
    [ -x "$dir/$t" ] || continue
    if ldd "$dir/$t" | grep -q 'librocksdb\.so'; then
      echo "setup: $dir/$t loads a shared librocksdb:" >&2
      ldd "$dir/$t" | grep librocksdb >&2
      return 1
    fi
  done
  echo "setup: RocksDB $version built in $((SECONDS - start))s in $dir"
  exec {lock}>&-
}

# The table reader fuzzer (clang, libFuzzer + ASan/UBSan): replays the saved
# crash inputs and the seeds, then fuzzes for a minute (tests/fuzz).
test_fuzzer() {
  CXX=clang++ cmake -S "$top" -B "$top/build-fuzz" -G Ninja -DCUCKOO_FUZZ=ON \
    -DCUCKOO_SANITIZE=address -DCMAKE_BUILD_TYPE=Debug \
    -DROCKSDB_SOURCE_DIR="$deps/rocksdb-src" >/dev/null
  cmake --build "$top/build-fuzz" -j "$jobs" --target cuckoo_fuzz
  (cd "$top/build-fuzz" && ctest --output-on-failure -L fuzz)
}

# RocksDB's own db_stress and db_crashtest.py, from the in-tree build of
# RocksDB $1, with our table, memtable and Env (tests/stress, about 4 min).
test_stress() {
  local version=${1:-$intree_default_version}
  cmake -S "$top/tests/stress" -B "$top/build-stress-$version" \
    -DDB_STRESS_DIR="$(intree_bin_dir "$version")" >/dev/null
  (cd "$top/build-stress-$version" && ctest --output-on-failure -L stress)
}

# Our whole test suite against the in-tree build of RocksDB $1: tests, tools
# and benchmarks compiled with that tree's release ABI (NDEBUG, -fno-rtti)
# and linked to its librocksdb.a, which holds the plugin as RocksDB's make
# compiled it (plugin/intree_mode.cmake).
test_suite_intree() {
  local version=$1
  cmake -S "$top" -B "$top/build-intree-$version" -G Ninja \
    -DCUCKOO_INTREE_ROCKSDB="$(intree_bin_dir "$version")" >/dev/null
  cmake --build "$top/build-intree-$version" -j "$jobs"
  (cd "$top/build-intree-$version" && ctest --output-on-failure -j "$jobs")
}

# The in-tree tools, run with no LD_PRELOAD against a DB that names our table,
# memtable and Env (tests/intree).
test_intree() {
  local version=${1:-$intree_default_version}
  cmake -S "$top/tests/intree" -B "$top/build-intree-test-$version" -G Ninja \
    -DINTREE_BIN_DIR="$(intree_bin_dir "$version")" >/dev/null
  (cd "$top/build-intree-test-$version" && ctest --output-on-failure)
}

# RocksDB $1's own unit tests over our table, memtable and Env, against a
# baseline without them, then its crash test (whitebox, blackbox, fault
# injection) from the debug build and from an ASan build (tests/rocksdb).
rocksdb_tests() {
  local version=${1:-$ci_intree_version} debug asan status=0
  local binaries
  debug="$cache_root/rocksdb-$version-debug"
  asan="$cache_root/rocksdb-$version-asan"
  intree_source "$version" "$debug"
  read -r -a binaries <<<"$(python3 "$top/tests/rocksdb/run_unit_tests.py" \
    --tree "$debug" --list-binaries)"
  python3 "$top/tests/rocksdb/patch_test_tree.py" "$debug"
  build_tree "$version" "$debug" debug_make_args db_stress "${binaries[@]}"
  echo "== RocksDB $version's unit tests: baseline, then our table, memtable, Env =="
  python3 "$top/tests/rocksdb/run_unit_tests.py" --tree "$debug" \
    --jobs "$jobs" --report "$top/tests/rocksdb/results/$version" || status=1
  echo "== db_stress and db_crashtest.py, RocksDB $version debug build =="
  python3 "$top/tests/stress/run_stress.py" --short --bin_dir "$debug" || status=1
  echo "== db_stress and db_crashtest.py, RocksDB $version ASan build =="
  build_tree "$version" "$asan" asan_make_args db_stress
  python3 "$top/tests/stress/run_stress.py" --short --bin_dir "$asan" \
    --mode=blackbox || status=1
  return $status
}

usage() {
  echo "usage: $0 [main|test|tsan|java [version]|test-intree <version> [--source PATH]|" >&2
  echo "         intree [version] [--source PATH]|intree-bin-dir [version]|" >&2
  echo "         rocksdb-tests [version]]" >&2
  exit 2
}

case "${1:-}" in
  intree-bin-dir) intree_bin_dir "${2:-}"; exit 0 ;;
  intree|test-intree)
    # <version> and --source PATH, in any order.
    command=$1 version=""
    shift
    while [ $# -gt 0 ]; do
      case "$1" in
        --source) [ $# -ge 2 ] || usage; intree_user_source=$2; shift 2 ;;
        --source=*) intree_user_source=${1#--source=}; shift ;;
        -*) usage ;;
        *) [ -z "$version" ] || usage; version=$1; shift ;;
      esac
    done
    [ "$command" = intree ] || [ -n "$version" ] || usage
    set -- "$command" "$version"
    ;;
  ""|main|test|tsan) ;;
  java) [ $# -le 2 ] || usage ;;
  rocksdb-tests) [ $# -le 2 ] || usage ;;
  *) usage ;;  # before any install or build
esac

install_packages
if [ "${1:-}" = intree ]; then
  build_intree "${2:-}"   # fetches RocksDB's source only when not cached
  exit 0
fi
if [ "${1:-}" = java ]; then
  build_java "${2:-}"
  test_java "${2:-$ci_intree_version}"
  exit $?
fi
if [ "${1:-}" = rocksdb-tests ]; then
  rocksdb_tests "${2:-}"
  exit $?
fi
if [ "${1:-}" = test ]; then warn_if_low_disk; fi
fetch_rocksdb_source
if [ "${1:-}" = main ]; then
  configure_and_build build "$main_targets" -DCMAKE_BUILD_TYPE=Release
else
  configure_and_build build "" -DCMAKE_BUILD_TYPE=Release
fi

case "${1:-}" in
  "") ;;
  main) exec "$top/db_bench_ext/main_job.sh" ;;
  test)
    configure_and_build build-asan "" -DCMAKE_BUILD_TYPE=Debug -DCUCKOO_SANITIZE=address
    echo "== ctest: release =="
    (cd build && ctest --output-on-failure -j "$jobs")
    echo "== ctest: ASan+UBSan =="
    (cd build-asan && ctest --output-on-failure -j "$jobs")
    echo "== fuzzer: table reader (libFuzzer, ASan+UBSan) =="
    test_fuzzer
    echo "== in-tree RocksDB $ci_intree_version (release, ROCKSDB_PLUGINS=cuckoo) =="
    build_intree "$ci_intree_version"
    echo "== ctest: test suite, in-tree RocksDB $ci_intree_version (release) =="
    test_suite_intree "$ci_intree_version"
    test_intree "$ci_intree_version"
    echo "== db_stress and db_crashtest.py, in-tree RocksDB $ci_intree_version =="
    test_stress "$ci_intree_version"
    echo "== RocksJava $ci_intree_version with the plugin: Java and Kafka Streams tests =="
    build_java "$ci_intree_version"
    test_java "$ci_intree_version"
    ;;
  test-intree)
    # Any in-tree version: its release build with the plugin, our test
    # suite against it, its tools, db_stress.
    version=$2
    build_intree "$version"
    echo "== ctest: test suite, in-tree RocksDB $version (release) =="
    test_suite_intree "$version"
    test_intree "$version"
    echo "== db_stress and db_crashtest.py, in-tree RocksDB $version =="
    test_stress "$version"
    ;;
  tsan)
    configure_and_build build-tsan "" -DCMAKE_BUILD_TYPE=Debug -DCUCKOO_SANITIZE=thread
    (cd build-tsan && ctest --output-on-failure -j "$jobs" -L concurrent)
    ;;
  *) usage ;;
esac

#!/usr/bin/env bash
# Places rocksdb-cuckoo inside a RocksDB source tree as the in-tree plugin
# `cuckoo`, so that RocksDB's own build compiles it into every RocksDB binary
# (db_bench, ldb, sst_dump, db_stress) with no LD_PRELOAD:
#
#   plugin/install_in_tree.sh [--link] [--force] <rocksdb-source-dir>
#
#   cd <rocksdb-source-dir>
#   cmake -S . -B build -DROCKSDB_PLUGINS=cuckoo -DCMAKE_BUILD_TYPE=Release \
#         -DWITH_GFLAGS=ON && cmake --build build -j"$(nproc)"
# or
#   make -j"$(nproc)" DEBUG_LEVEL=0 ROCKSDB_PLUGINS=cuckoo \
#        static_lib db_bench ldb sst_dump db_stress
#
# <rocksdb-source-dir>/plugin/cuckoo then holds copies (symlinks with --link)
# of table/ memtable/ util/ cache/ plugin/, java/src/ and java/rocksjni/ (the
# RocksJava classes and their JNI side), java/jni.mk, plugin/cuckoo.mk (the library's
# list of sources) and plugin/CMakeLists.txt as its CMakeLists.txt (it only
# sets variables; RocksDB makes the targets).
# Re-running updates an earlier installation in place: a file is rewritten
# only when its content differs and files gone from the project are removed,
# so make/ninja rebuild only what really changed (a fresh clone gives every
# file a new mtime). --force replaces a plugin/cuckoo that this script did
# not create.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project_dir=$(cd "${script_dir}/.." && pwd)
marker=.rocksdb_cuckoo_in_tree

usage() {
  # The comment block at the top of this file.
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' \
    "${BASH_SOURCE[0]}"
  exit "${1:-2}"
}

die() {
  echo "install_in_tree.sh: $*" >&2
  exit 1
}

# The files of cuckoo.mk's cuckoo_SOURCES, one a line.
lib_sources() {
  sed -n 's/^cuckoo_SOURCES = //p' "${script_dir}/cuckoo.mk" | tr ' ' '\n' |
    sed '/^$/d'
}

link=0
force=0
rocksdb_dir=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --link) link=1 ;;
    --force) force=1 ;;
    -h|--help) usage 0 ;;
    -*) echo "unknown option: $1" >&2; usage ;;
    *) [[ -z "${rocksdb_dir}" ]] || usage; rocksdb_dir=$1 ;;
  esac
  shift
done

[[ -n "${rocksdb_dir}" ]] || usage
[[ -d "${rocksdb_dir}" ]] || die "${rocksdb_dir}: no such directory"
rocksdb_dir=$(cd "${rocksdb_dir}" && pwd)
for f in CMakeLists.txt Makefile include/rocksdb/db.h plugin; do
  [[ -e "${rocksdb_dir}/${f}" ]] ||
    die "${rocksdb_dir} is not a RocksDB source tree (no ${f})"
done

# Makes $2 hold $1's content, leaving it (and its mtime) alone when it
# already does.
sync_file() {
  if ! cmp -s "$1" "$2"; then
    mkdir -p "$(dirname "$2")"
    cp "$1" "$2.tmp.$$"
    mv -f "$2.tmp.$$" "$2"
  fi
}

# Mirrors the project's folder $1 at ${dest}/$1 by content and lists the
# files it placed in ${manifest_new}. RocksDB's make writes its objects and
# dependency files beside our sources, so only files an earlier run placed
# (its manifest) are removed when the project no longer has them.
sync_dir() {
  local dir=$1 rel
  if [[ -L "${dest}/${dir}" || -f "${dest}/${dir}" ]]; then
    rm -f "${dest}/${dir}"
  fi
  mkdir -p "${dest}/${dir}"
  while IFS= read -r -d '' rel; do
    sync_file "${project_dir}/${dir}/${rel}" "${dest}/${dir}/${rel}"
    printf '%s\n' "${dir}/${rel}" >> "${manifest_new}"
  done < <(cd "${project_dir}/${dir}" && find . -type f -printf '%P\0')
}

dest="${rocksdb_dir}/plugin/cuckoo"
if [[ -L "${dest}" ]]; then
  rm -f "${dest}"
elif [[ -e "${dest}" && ! -e "${dest}/${marker}" ]]; then
  [[ ${force} -eq 1 ]] ||
    die "${dest} exists and was not made by this script (use --force)"
  rm -rf "${dest}"
fi
mkdir -p "${dest}"
manifest="${dest}/.rocksdb_cuckoo_files"
manifest_new=$(mktemp)
chmod 644 "${manifest_new}"
trap 'rm -f "${manifest_new}"' EXIT

# java/src and java/rocksjni: the plugin's RocksJava classes and their JNI
# side (RocksDB's java/Makefile and rocksdbjava goal look for them there).
for dir in table memtable util cache plugin java/src java/rocksjni; do
  if [[ ! -d "${project_dir}/${dir}" ]]; then
    rm -rf "${dest:?}/${dir}"
  elif [[ ${link} -eq 1 ]]; then
    mkdir -p "$(dirname "${dest}/${dir}")"
    [[ "$(readlink "${dest}/${dir}" || true)" == "${project_dir}/${dir}" ]] || {
      rm -rf "${dest:?}/${dir}"
      ln -s "${project_dir}/${dir}" "${dest}/${dir}"
    }
  else
    sync_dir "${dir}"
  fi
done

# Sources removed from the project since the last run, with their objects.
# Objects whose dependency files name a removed header are removed too: make
# would otherwise stop on the missing header instead of rebuilding them.
if [[ -f "${manifest}" ]]; then
  while IFS= read -r rel; do
    grep -qxF -- "${rel}" "${manifest_new}" && continue
    [[ -L "${dest}/${rel%%/*}" ]] && continue
    rm -f "${dest}/${rel}" "${dest}/${rel%.*}.o" "${dest}/${rel}.d"
    while IFS= read -r -d '' dep; do
      rm -f "${dep}" "${dep%.*.d}.o"
    done < <(grep -rlZF --include='*.d' -e "plugin/cuckoo/${rel}" "${dest}" || true)
  done < "${manifest}"
fi
sync_file "${manifest_new}" "${manifest}"

sync_file "${script_dir}/cuckoo.mk" "${dest}/cuckoo.mk"
sync_file "${project_dir}/java/jni.mk" "${dest}/java/jni.mk"
sync_file "${script_dir}/CMakeLists.txt" "${dest}/CMakeLists.txt"
[[ "$(cat "${dest}/${marker}" 2>/dev/null)" == "${project_dir}" ]] ||
  echo "${project_dir}" > "${dest}/${marker}"

missing=0
while read -r src; do
  if [[ ! -f "${dest}/${src}" ]]; then
    echo "missing source: ${dest}/${src}" >&2
    missing=1
  fi
done < <(lib_sources)
[[ ${missing} -eq 0 ]] || die "some plugin sources are missing"

cat <<EOF
Installed rocksdb-cuckoo as ${dest}
Build RocksDB with it (every binary then knows CuckooHashTable):
  cd ${rocksdb_dir}
  cmake -S . -B build -DROCKSDB_PLUGINS=cuckoo -DCMAKE_BUILD_TYPE=Release
  cmake --build build -j\$(nproc)
or
  make -j\$(nproc) DEBUG_LEVEL=0 ROCKSDB_PLUGINS=cuckoo static_lib db_bench ldb sst_dump db_stress
EOF

#!/usr/bin/env bash
# Packs the benchmark binaries with every shared library they load (this
# machine's dynamic loader and libc included) into one folder, so the
# harness runs on another x86-64 Linux machine without installing anything:
#
#   db_bench_ext/make_portable_bundle.sh bench-out/bundle   # here
#   bench-out/bundle/bin/db_bench --help                    # there
#
# Each bin/<tool> is a wrapper that starts the real binary through the
# bundled loader with --library-path, so the other machine's libc version
# does not matter. LD_PRELOAD=<bundle>/lib/librocksdb_cuckoo.so works as here.
# <bundle>/build_name names the build the tools come from.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: $0 <output-folder>}
build=${BUILD_DIR:-build}
# An in-tree build folder (BUILD_DIR=build-intree-9.10.0) links RocksDB's
# release with the plugin compiled in: that tree's db_bench and ldb hold the
# plugin, and there is no library to preload.
intree=$(sed -n 's/^CUCKOO_INTREE_ROCKSDB:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ -n "$intree" ]; then
  tools=("$intree/db_bench" "$intree/ldb")
else
  tools=(/usr/bin/db_bench /usr/bin/ldb)
fi
tools+=("$build/db_bench_ext/table_reader_bench" "$build/db_bench_ext/table_compare"
  "$build/db_bench_ext/make_options_file" "$build/cuckoo_sst_dump")
for extra in "$build"/db_bench_ext/*_bench; do
  [ -x "$extra" ] && tools+=("$extra")
done

rm -rf "$out" && mkdir -p "$out/bin" "$out/libexec" "$out/lib"
if [ -z "$intree" ]; then cp -L "$build/librocksdb_cuckoo.so" "$out/lib/"; fi
for tool in "${tools[@]}"; do
  [ -x "$tool" ] || continue
  cp -L "$tool" "$out/libexec/"
  ldd "$tool" | awk '/=> \//{print $3} $1 ~ /^\/.*ld-linux/{print $1}' |
    while read -r lib; do cp -Ln "$lib" "$out/lib/" 2>/dev/null || true; done
  name=$(basename "$tool")
  cat >"$out/bin/$name" <<WRAP
#!/bin/sh
here=\$(cd "\$(dirname "\$0")/.." && pwd)
exec "\$here/lib/ld-linux-x86-64.so.2" --library-path "\$here/lib" "\$here/libexec/$name" "\$@"
WRAP
  chmod +x "$out/bin/$name"
done
# Optional allocators the memory benchmarks preload.
for lib in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2; do
  [ -f "$lib" ] && cp -L "$lib" "$out/lib/"
done
# The build's name (rocksdb-<version>-intree or -system): scaling_rows.sh and
# run_folder.py name the bundle's runs by it.
python3 db_bench_ext/run_folder.py --build_name "$build" >"$out/build_name"
# Debug info is not needed there and the bundle must stay small to copy.
strip --strip-debug "$out"/libexec/*
if [ -z "$intree" ]; then strip --strip-debug "$out/lib/librocksdb_cuckoo.so"; fi
du -sh "$out"

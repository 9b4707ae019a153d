#!/usr/bin/env bash
# Fetches the source of a RocksDB release that Debian packages but bookworm
# does not ship, from Debian's package registry, and unpacks it:
#
#   plugin/fetch_rocksdb_release.sh <version> <dest-dir> [<download-dir>]
#   plugin/fetch_rocksdb_release.sh --versions   (prints the versions known)
#
#   9.10.0   Debian trixie's  rocksdb 9.10.0-1
#   9.11.2   Debian sid's     rocksdb 9.11.2-1
#
# The registry serves these packages' orig tarballs but answers 404 for
# their .dsc, so `apt-get source --download-only` downloads the tarball and
# then exits non-zero. The tarball is therefore checked here against the
# SHA-256 that `apt-cache showsrc` reads from the suite's signed index, and
# unpacked by hand; a mismatch stops with a clear message. A private apt
# configuration (under <download-dir>) leaves the machine's apt untouched; it
# names the Debian archive the machine's apt already uses
# (plugin/debian_archive.sh).
set -euo pipefail

die() {
  echo "fetch_rocksdb_release.sh: $*" >&2
  exit 1
}

known_versions="9.10.0 9.11.2"
if [[ "${1:-}" == --versions ]]; then
  echo "$known_versions"
  exit 0
fi
[[ $# -ge 2 ]] || die "usage: $0 <version> <dest-dir> [<download-dir>] | --versions"
version=$1
dest=$2
downloads=${3:-$(dirname "$dest")/debian-downloads}

case "$version" in
  9.10.0) suite=trixie; package_version=9.10.0-1 ;;
  9.11.2) suite=sid; package_version=9.11.2-1 ;;
  *) die "no Debian source known for RocksDB $version (known: $known_versions)" ;;
esac

tarball_name="rocksdb_${version}.orig.tar.gz"
archive=$("$(dirname "${BASH_SOURCE[0]}")/debian_archive.sh")
apt_dir="$downloads/apt-$suite"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb-src $archive $suite main" >"$apt_dir/sources.list"
apt_options=(-o Dir::Etc::SourceList="$apt_dir/sources.list"
  -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$apt_dir/lists"
  -o Dir::Cache="$apt_dir/cache" -o APT::Sandbox::User=root)

# The signed index: which SHA-256 the tarball must have.
apt-get "${apt_options[@]}" update -qq
expected=$(apt-cache "${apt_options[@]}" showsrc rocksdb |
  awk -v name="$tarball_name" -v want="$package_version" '
    /^Package:/ { version = "" }
    /^Version:/ { version = $2 }
    /^Checksums-Sha256:/ { in_sha = 1; next }
    /^[^ ]/ { in_sha = 0 }
    in_sha && version == want && $3 == name { print $1; exit }')
[[ -n "$expected" ]] ||
  die "Debian's $suite index lists no $tarball_name for rocksdb $package_version"

tarball="$downloads/$tarball_name"
if [[ ! -f "$tarball" ]] ||
  [[ "$(sha256sum "$tarball" | cut -d' ' -f1)" != "$expected" ]]; then
  rm -f "$tarball"
  echo "fetch_rocksdb_release.sh: downloading $tarball_name from Debian $suite"
  # Exits non-zero after the tarball when the .dsc answers 404.
  (cd "$downloads" &&
    apt-get "${apt_options[@]}" source --download-only -qq \
      "rocksdb=$package_version") || true
  [[ -f "$tarball" ]] || die "apt-get did not download $tarball_name"
fi
actual=$(sha256sum "$tarball" | cut -d' ' -f1)
[[ "$actual" == "$expected" ]] ||
  die "$tarball_name has SHA-256 $actual, but Debian's signed index says $expected"

tmp="$dest.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xzf "$tarball" -C "$tmp" --strip-components=1
[[ -f "$tmp/include/rocksdb/version.h" ]] || die "$tarball_name holds no RocksDB tree"
echo "Debian $suite rocksdb $package_version ($tarball_name, sha256 $actual)" \
  >"$tmp/.rocksdb_cuckoo_source"
rm -rf "$dest"
mv "$tmp" "$dest"
echo "fetch_rocksdb_release.sh: RocksDB $version in $dest"

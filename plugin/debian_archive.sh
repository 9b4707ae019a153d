#!/usr/bin/env bash
# Prints the Debian archive this machine's apt already uses, as the
# `[signed-by=KEYRING] URI` part of a one-line apt source, for the private
# deb-src lists of setup.sh and plugin/fetch_rocksdb_release.sh:
#
#   plugin/debian_archive.sh
#
# It reads apt's own source files (Dir::Etc::SourceList and the *.list and
# *.sources files in Dir::Etc::SourceParts, so APT_CONFIG is honoured) and
# takes the first enabled entry whose suite is a Debian one (this machine's
# codename, a recent Debian codename, stable, testing, unstable, sid; with or
# without a -updates style suffix) and that serves `main`, skipping security
# archives (they hold only security updates): a mirror the machine is known
# to reach, instead of an address fixed here. Its signed-by
# keyring is kept; without one, Debian's archive keyring.
set -euo pipefail

die() {
  echo "debian_archive.sh: $*" >&2
  exit 1
}

command -v apt-config >/dev/null || die "apt-config not found (not a Debian machine?)"
list=/etc/apt/sources.list
parts=/etc/apt/sources.list.d
eval "$(apt-config shell list Dir::Etc::SourceList/f parts Dir::Etc::SourceParts/d)"
parts=${parts%/}
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d "\"'") || true

files=()
[[ -f "$list" ]] && files+=("$list")
for f in "$parts"/*.list "$parts"/*.sources; do
  [[ -f "$f" ]] && files+=("$f")
done
[[ ${#files[@]} -gt 0 ]] || die "no apt source files ($list, $parts/*.list, $parts/*.sources)"

# One awk pass over all files, in apt's order; prints the first match.
found=$(awk -v codename="$codename" \
  -v default_key=/usr/share/keyrings/debian-archive-keyring.gpg '
  function debian_suite(s) {
    sub(/-.*/, "", s)
    return s == codename ||
      s ~ /^(oldstable|stable|testing|unstable|sid|bullseye|bookworm|trixie|forky)$/
  }
  function has(list, word,   n, a, i) {
    n = split(list, a, /[ \t]+/)
    for (i = 1; i <= n; i++) if (a[i] == word) return 1
    return 0
  }
  # Prints the answer and stops when the entry qualifies.
  function consider(uris, suites, comps, key,   n, u, i, m, s, j, ok) {
    if (!has(comps, "main")) return
    m = split(suites, s, /[ \t]+/); ok = 0
    for (j = 1; j <= m; j++) if (s[j] != "" && debian_suite(s[j])) ok = 1
    if (!ok) return
    if (key == "") key = default_key
    n = split(uris, u, /[ \t]+/)
    for (i = 1; i <= n; i++)
      if (u[i] != "" && u[i] !~ /security/) {
        print "[signed-by=" key "] " u[i]
        found = 1
        exit
      }
  }
  # deb822 stanza (*.sources): fields kept in st[], lower-case names.
  function flush(   types) {
    types = st["types"]
    if ((has(types, "deb") || has(types, "deb-src")) && tolower(st["enabled"]) != "no") {
      key = st["signed-by"]
      # An inline key block cannot go into a one-line source.
      if (key !~ /^\//) key = ""
      gsub(/[ \t]+/, ",", key)
      consider(st["uris"], st["suites"], st["components"], key)
    }
    delete st
  }
  FNR == 1 { if (deb822) flush(); deb822 = FILENAME ~ /\.sources$/; field = "" }
  deb822 {
    if ($0 ~ /^#/) next
    if ($0 ~ /^[ \t]*$/) { flush(); field = ""; next }
    if ($0 ~ /^[ \t]/) { if (field != "") st[field] = st[field] " " $0; next }
    field = tolower($0); sub(/:.*/, "", field)
    value = $0; sub(/^[^:]*:[ \t]*/, "", value); sub(/[ \t]+$/, "", value)
    st[field] = value
    next
  }
  {  # one-line format: deb[-src] [options] uri suite component...
    line = $0; sub(/#.*/, "", line)
    n = split(line, t, /[ \t]+/)
    i = (t[1] == "") ? 2 : 1
    if (t[i] != "deb" && t[i] != "deb-src") next
    i++; key = ""; opts = ""
    if (substr(t[i], 1, 1) == "[") {
      while (i <= n) { opts = opts " " t[i]; if (t[i] ~ /\]$/) break; i++ }
      i++
    }
    if (match(opts, /signed-by=[^] \t]+/)) key = substr(opts, RSTART + 10, RLENGTH - 10)
    comps = ""
    for (j = i + 2; j <= n; j++) comps = comps " " t[j]
    consider(t[i], t[i + 1], comps, key)
  }
  END { if (!found && deb822) flush() }' "${files[@]}")
[[ -n "$found" ]] || die "no Debian archive serving main (other than security) in ${files[*]}"
echo "$found"

#!/usr/bin/python3
"""Where a measured run's files go: db_bench_ext/results/<date>-<machine>-<build>/.

  <date>     the UTC date the run starts, YYYY-MM-DD
  <machine>  $CUCKOO_MACHINE if set, else vm<N>core, N the CPUs this process
             may run on (vm2core: this project's 2-core VM; vm16core: the
             16-CPU device machine)
  <build>    rocksdb-<version>-intree for an in-tree release build folder
             (CMake's CUCKOO_INTREE_ROCKSDB; the version from that tree's
             include/rocksdb/version.h), rocksdb-<version>-system for a
             system-mode build (the installed rocksdb/version.h), or what a
             portable bundle's build_name file says (make_portable_bundle.sh
             writes it)

Each run folder has a COMMAND.md giving the command that wrote each file.
db_bench_compare.py, memtable_compare.py, executor_db_bench.py and
write_compare.py with --results (add_results_flag, out_in_folder),
memory_mode.sh with --results and scaling_rows.sh without an out-folder
write into the run folder and append their command to it.

    db_bench_ext/run_folder.py build-intree-11.8.1       # print the folder
    db_bench_ext/run_folder.py --create build            # ... and make it
    db_bench_ext/run_folder.py --build_name build        # rocksdb-7.8.3-system
    db_bench_ext/run_folder.py --record DIR --files a.txt --command 'CMD'
"""
import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "db_bench_ext", "results")
SYSTEM_VERSION_H = "/usr/include/rocksdb/version.h"
COMMAND_FILE = "COMMAND.md"


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _version(version_h):
    """x.y.z from a RocksDB include/rocksdb/version.h, or None."""
    text = _read(version_h) or ""
    parts = [re.search(r"^#define ROCKSDB_%s (\d+)" % p, text, re.M)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else None


def _intree(build):
    """The RocksDB tree an in-tree build folder links, or None."""
    m = re.search(r"^CUCKOO_INTREE_ROCKSDB:PATH=(.+)$",
                  _read(os.path.join(build, "CMakeCache.txt")) or "", re.M)
    return m.group(1).strip() if m else None


def build_name(build):
    """rocksdb-<version>-intree or rocksdb-<version>-system for a build folder
    (or a portable bundle, or scaling_rows.sh's stand-in build folder of one)."""
    for bundle in (build, os.path.join(build, "..")):
        name = (_read(os.path.join(bundle, "build_name")) or "").strip()
        if name:
            return name
    if os.path.isfile(os.path.join(build, "bin", "db_bench")):
        # A bundle made before bundles named their build: only the mode shows.
        preloaded = os.path.isfile(os.path.join(build, "lib",
                                                "librocksdb_cuckoo.so"))
        return "rocksdb-unknown-" + ("system" if preloaded else "intree")
    tree = _intree(build)
    if tree:
        for bundle in (tree, os.path.join(tree, "..")):
            name = (_read(os.path.join(bundle, "build_name")) or "").strip()
            if name:
                return name
        version = _version(os.path.join(tree, "include", "rocksdb",
                                        "version.h"))
        if not version:  # setup.sh names its trees rocksdb-<version>-intree
            m = re.search(r"rocksdb-(\d+\.\d+\.\d+)", os.path.basename(tree))
            version = m.group(1) if m else "unknown"
        return "rocksdb-%s-intree" % version
    return "rocksdb-%s-system" % (_version(SYSTEM_VERSION_H) or "unknown")


def cpus():
    try:
        return len(os.sched_getaffinity(0))  # what nproc prints
    except (AttributeError, OSError):
        return os.cpu_count() or 0


def machine():
    return os.environ.get("CUCKOO_MACHINE") or "vm%dcore" % cpus()


def run_name(build, when=None):
    when = when or datetime.datetime.now(datetime.timezone.utc)
    return "%s-%s-%s" % (when.strftime("%Y-%m-%d"), machine(),
                         build_name(build))


def folder(build, create=True):
    path = os.path.join(RESULTS, run_name(build))
    if create:
        os.makedirs(path, exist_ok=True)
    return path


def _commit():
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short",
                               "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "no git checkout"
    return "at " + head + (" with uncommitted changes" if dirty else "")


def record(path, files, command):
    """Appends `command` (one shell line) and the files it wrote to
    <path>/COMMAND.md."""
    os.makedirs(path, exist_ok=True)
    md = os.path.join(path, COMMAND_FILE)
    new = not os.path.exists(md)
    now = datetime.datetime.now(datetime.timezone.utc)
    with open(md, "a") as f:
        if new:
            f.write("# %s\n\nThe commands that wrote this folder's files, "
                    "as the harnesses recorded them (run from the "
                    "repository root).\n" % os.path.basename(
                        os.path.abspath(path)))
        f.write("\n## %s UTC, %s CPUs, %s\n\n%s:\n\n    %s\n" % (
            now.strftime("%Y-%m-%d %H:%M"), cpus(), _commit(),
            ", ".join("`%s`" % name for name in files), command.strip()))


def record_argv(path, files, argv=None):
    """record() of this process's own command line."""
    argv = list(sys.argv if argv is None else argv)
    script = os.path.abspath(argv[0])
    if script.startswith(REPO + os.sep):
        argv[0] = os.path.relpath(script, REPO)
    record(path, files, " ".join(shlex.quote(a) for a in argv))


def add_results_flag(parser, default_name):
    """The harnesses' --results flag; out_in_folder() says where it writes."""
    parser.add_argument(
        "--results", action="store_true",
        help="write into this run's folder under db_bench_ext/results/ "
        "(<date>-<machine>-<build>), named by --out's last part (default "
        f"{default_name}), and add the command to its COMMAND.md")


def out_in_folder(build, out, default_name):
    """The --out prefix of a --results run: in this run's folder, named by
    --out's last part, else default_name."""
    return os.path.join(folder(build, create=False),
                        os.path.basename(out or "") or default_name)


def short_count(n):
    """1000000 -> 1M, 500000 -> 500k: the size in a results file's name."""
    for unit, size in (("M", 1000000), ("k", 1000)):
        if n >= size and n % size == 0:
            return "%d%s" % (n // size, unit)
    return str(n)


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("build", nargs="?",
                   help="build folder or portable bundle")
    p.add_argument("--create", action="store_true",
                   help="also make the run folder")
    p.add_argument("--build_name", action="store_true",
                   help="print only the build's name")
    p.add_argument("--record", metavar="DIR",
                   help="append --command and --files to DIR/COMMAND.md")
    p.add_argument("--files", default="", help="comma-separated file names")
    p.add_argument("--command", default="", help="the command, one line")
    args = p.parse_args()
    if args.record:
        record(args.record, [f for f in args.files.split(",") if f],
               args.command)
        return
    if not args.build:
        p.error("a build folder or bundle is needed")
    print(build_name(args.build) if args.build_name
          else folder(args.build, create=args.create))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""CuckooHashTable against RocksDB's table formats, through the stock db_bench.

Drives Debian's unmodified db_bench 7.8.3 with build/librocksdb_cuckoo.so
preloaded. Built-in formats are picked with db_bench's
own flags (--use_cuckoo_table, --identity_as_first_hash, --use_plain_table,
block-based by default); ours has no flag, so it gets an OPTIONS file
(--options_file) made from the OPTIONS file db_bench wrote for the built-in
CuckooTable, with only the table factory replaced: every other option is the
same as in the CuckooTable run.

Per repetition, every format is loaded (fillseq + compact into one level, the
table build time) and then read (readrandom of present and of absent keys,
multireadrandom --multiread_batched with batches of 16 and 32, at each thread
count), formats taking turns on every measurement so that they share the
machine's noise. Every run is checked: db_bench's LOG must name the expected
table factory (an unregistered id silently falls back to BlockBasedTable),
the .sst files must carry the format's magic number, the data
must sit in one level, and present/absent reads must find all/none of the keys.

Optionally (--micro) runs build/db_bench_ext/table_reader_bench (Google
Benchmark, TableReader level) and folds its ours/built-in ratios into the
report, then counts the cache lines one Get reads, ours and the built-in, by
running its lookups under valgrind's cache simulator (about 90 s).

With --build at an in-tree build folder (CMake's CUCKOO_INTREE_ROCKSDB set,
e.g. build-intree-9.10.0), it drives that RocksDB release's own db_bench,
which has the plugin compiled in, and preloads nothing.

Writes PREFIX.csv (every sample), PREFIX.txt (the report), PREFIX.png (the
plot) and PREFIX-logs/ (each db_bench output, the OPTIONS files, the preloaded
library), PREFIX from --out. With --results they go into this run's folder,
db_bench_ext/results/<date>-<machine>-<build>/ (run_folder.py), named by
--out's last part (default db_bench_compare_<num>, e.g. db_bench_compare_1M),
and the command line is added to that folder's COMMAND.md.

On another machine: copy db_bench, librocksdb.so.7.8 and the libraries `ldd
db_bench` lists that it lacks (libgflags, libsnappy, liblz4, libzstd, libbz2,
libz), librocksdb_cuckoo.so, make_options_file (and table_reader_bench for
--micro) and this script; run it with LD_LIBRARY_PATH at the copied libraries
and --db_bench, --lib, --make_options_file (--table_reader_bench) at the
copies.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import run_folder

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---- what is compared ------------------------------------------------------

@dataclass(frozen=True)
class KeySet:
    """A data set: how db_bench's keys are made for loading and for reads."""
    name: str
    title: str
    # db_bench flags giving the loaded keys (and the present-key reads) ...
    present_flags: tuple
    # ... and keys that are absent but inside the loaded key range, or None.
    absent_flags: tuple = None


def key_sets(key_size):
    # db_bench makes key i as 8 big-endian bytes of i padded with '0' bytes, so
    # a key past the loaded count lies past the largest key: RocksDB's version
    # check answers it without reaching any table. With --keys_per_prefix=1
    # --prefix_size=8, key i is instead i twice (8 bytes each); the keys made
    # without that flag, i then '0' bytes, fall between loaded keys i and i+1
    # and are all absent, so absent lookups really probe the table.
    return {
        "text": KeySet("text", f"{key_size}-byte keys",
                       (f"--key_size={key_size}", "--prefix_size=8",
                        "--keys_per_prefix=1"),
                       (f"--key_size={key_size}", "--prefix_size=8",
                        "--keys_per_prefix=0")),
        # 8-byte integer keys 0..num-1 for identity_as_first_hash; every key
        # inside their range is present, so there are no absent reads here.
        "int": KeySet("int", "8-byte integer keys, identity_as_first_hash",
                      ("--key_size=8", "--prefix_size=8",
                       "--keys_per_prefix=0")),
    }


@dataclass(frozen=True)
class Format:
    name: str               # --formats word and CSV value
    label: str              # column and plot label
    keyset: str
    factory: str            # the table factory db_bench's LOG must name
    magic: tuple            # footer magic numbers its .sst files may carry
    mmap: bool              # allow_mmap_reads
    identity: bool = False  # identity_as_first_hash, checked in the LOG
    flags: tuple = ()       # built-in: the db_bench flags that select it
    ours_table: str = ""    # ours: the table_factory options string
    ours_db: str = ""       # ours: DB options changed from the base
    base: str = ""          # ours: the built-in whose OPTIONS it starts from
    # Run untimed before each read's own untimed pass: what brings this
    # format's tables to how a long-running DB holds them.
    warmup: tuple = ()


# Footer magic numbers: table/cuckoo_hash_table_format.h and RocksDB 7.8.3's
# cuckoo_table_builder.cc, plain_table_builder.cc, block_based_table_builder.cc.
# PlainTable writes its legacy number (footer format 0) in 7.8.3.
OURS_MAGIC = (0x73686F6F6B637563,)
CUCKOO_MAGIC = (0x926789D0C5F17873,)
PLAIN_MAGIC = (0x8242229663BF9564, 0x4F3418EB7A8F13B8)
BLOCK_MAGIC = (0x88E241B785F4CFF7,)
OURS_ID = "CuckooHashTable"
OURS_TABLE = f"table_factory={{id={OURS_ID}}}"
OURS_ID_TABLE = f"table_factory={{id={OURS_ID};identity_as_first_hash=true}}"
LOADED = "allow_mmap_reads=false"
# A loaded table reads a chunk when a lookup first reaches it, and the
# background loader then reads the rest of the file while the lookups go
# on. Random reads alone can leave that load running into the timed pass
# (absent keys reach only the buckets, and at 20M keys the loader has
# gigabytes to read), which times a DB just opened, not a running one.
# One thread's full scan first (db_bench's readtocache, the pass that fills
# BlockBasedTable's block cache) reads every entry itself.
WHOLE_FILE_LOADED = ("readtocache",)

FORMATS = [
    # Ours in its strongest configuration: allow_mmap_reads=false, so each
    # file is read once into huge-page memory (a mapped file has 4 KiB
    # pages, and every lookup then also misses the TLB).
    Format("ours", "CuckooHashTable", "text", OURS_ID, OURS_MAGIC, False,
           ours_table=OURS_TABLE, ours_db=LOADED, base="cuckoo",
           warmup=WHOLE_FILE_LOADED),
    Format("cuckoo", "CuckooTable", "text", "CuckooTable", CUCKOO_MAGIC, True,
           flags=("--use_cuckoo_table", "--mmap_read=1")),
    # PlainTable with db_bench's settings: hash index on the 8-byte prefix
    # (unique per key here), 10 bloom bits per key (PlainTableOptions').
    Format("plain", "PlainTable", "text", "PlainTable", PLAIN_MAGIC, True,
           flags=("--use_plain_table", "--mmap_read=1")),
    # BlockBasedTable tuned for point lookups: a hash index inside every
    # data block (kDataBlockBinaryAndHash), bloom 10 bits, index and filter
    # held by the table reader (not in the cache, so never evicted), and a
    # block cache holding the whole DB, filled by one sequential pass before
    # each read.
    Format("block", "BlockBasedTable", "text", "BlockBasedTable", BLOCK_MAGIC,
           False, flags=("--mmap_read=0", "--bloom_bits=10",
                         "--use_data_block_hash_index=1",
                         "--cache_index_and_filter_blocks=0"),
           warmup=("readtocache",)),
    Format("ours_id", "CuckooHashTable id", "int", OURS_ID, OURS_MAGIC, False,
           identity=True, ours_table=OURS_ID_TABLE, ours_db=LOADED,
           base="cuckoo_id", warmup=WHOLE_FILE_LOADED),
    Format("cuckoo_id", "CuckooTable id", "int", "CuckooTable", CUCKOO_MAGIC,
           True, identity=True,
           flags=("--use_cuckoo_table", "--identity_as_first_hash=1",
                  "--mmap_read=1")),
    # Not in the defaults: ours on the mapped file, as the built-ins read.
    Format("ours_mmap", "CuckooHashTable mmap", "text", OURS_ID, OURS_MAGIC,
           True, ours_table=OURS_TABLE, base="cuckoo"),
    Format("ours_id_mmap", "CuckooHashTable id mmap", "int", OURS_ID,
           OURS_MAGIC, True, identity=True, ours_table=OURS_ID_TABLE,
           base="cuckoo_id"),
]
FORMAT_BY_NAME = {f.name: f for f in FORMATS}


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    benchmark: str
    batch: int = 1
    absent: bool = False

    def flags(self):
        if self.batch == 1:
            return ()
        return ("--multiread_batched=1", f"--batch_size={self.batch}")


WORKLOADS = [
    Workload("get", "Get, present keys", "readrandom"),
    Workload("get_absent", "Get, absent keys", "readrandom", absent=True),
    Workload("multiget16", "MultiGet, batch 16", "multireadrandom", 16),
    Workload("multiget32", "MultiGet, batch 32", "multireadrandom", 32),
]
WORKLOAD_BY_NAME = {w.name: w for w in WORKLOADS}

# Measurements of a load (one thread): id -> (title, unit).
LOAD_METRICS = {
    "build_s": ("build: fillseq+compact", "s"),
    "compact_s": ("  of which compact", "s"),
    "size_mb": ("SST files", "MB"),
}


# ---- running db_bench -------------------------------------------------------

class HarnessError(Exception):
    """A run that went wrong: its numbers must not be reported."""


RESULT_LINE = re.compile(
    r"^(?P<name>\w+)\s*:\s*[\d.]+ micros/op (?P<ops>\d+) ops/sec "
    r"(?P<seconds>[\d.]+) seconds (?P<count>\d+) operations;(?P<rest>.*)$",
    re.M)
FOUND = re.compile(r"\((\d+) of (\d+) found\)")


class Runner:
    """Runs db_bench for one format and checks what really ran."""

    def __init__(self, args, keysets, log_dir):
        self.args = args
        self.keysets = keysets
        self.log_dir = log_dir
        self.options_files = {}  # ours format name -> OPTIONS file
        self.env = dict(os.environ)
        # Every run preloads the plugin, built-in formats too, so that the
        # processes differ only in the table factory.
        self.env["LD_PRELOAD"] = " ".join(
            p for p in (args.lib, os.environ.get("LD_PRELOAD")) if p)
        if not self.env["LD_PRELOAD"]:
            del self.env["LD_PRELOAD"]
        self.runs = 0

    def db_dir(self, fmt):
        return os.path.join(self.args.db_dir, fmt.name)

    def common_flags(self, fmt, keys):
        a = self.args
        flags = [f"--db={self.db_dir(fmt)}", f"--num={a.num}",
                 f"--value_size={a.value_size}", *keys,
                 "--compression_type=none", "--disable_auto_compactions=1",
                 # The load's L0 files must not stall writes.
                 "--level0_slowdown_writes_trigger=1000000",
                 "--level0_stop_writes_trigger=1000000",
                 "--disable_wal=1", "--progress_reports=false",
                 *a.db_bench_arg]
        if fmt.ours_table:
            flags.append(f"--options_file={self.options_files[fmt.name]}")
        else:
            flags += fmt.flags
            if fmt.name == "block":
                flags.append(f"--cache_size={a.cache_mb << 20}")
        return flags

    def run(self, fmt, keys, benchmarks, extra, tag):
        """Runs db_bench; returns {benchmark: (ops/s, seconds, found, of)}."""
        cmd = [self.args.db_bench, f"--benchmarks={','.join(benchmarks)}",
               *self.common_flags(fmt, keys), *extra]
        self.runs += 1
        log = os.path.join(self.log_dir, f"{self.runs:04d}-{tag}.txt")
        proc = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        with open(log, "w") as f:
            f.write(" ".join(cmd) + "\n\n" + proc.stdout)
        if proc.returncode != 0:
            # 7.8.3's db_bench dereferences the null factory it gets for an
            # OPTIONS file naming an id nobody registered.
            hint = (" (a crash here: is the plugin really preloaded?)"
                    if fmt.ours_table else "")
            raise HarnessError(f"db_bench failed ({proc.returncode}){hint}, "
                               f"see {log}:\n{proc.stdout[-2000:]}")
        self.check_log(fmt, log)
        # A benchmark run twice (warm-up first) keeps its last line.
        results = {}
        for m in RESULT_LINE.finditer(proc.stdout):
            found = FOUND.search(m["rest"])
            results[m["name"]] = (int(m["ops"]), float(m["seconds"]),
                                  *(map(int, found.groups()) if found
                                    else (None, None)))
        # levelstats prints a table, not a result line.
        missing = [b for b in benchmarks
                   if b not in results and b != "levelstats"]
        if missing:
            raise HarnessError(f"no result for {missing} in {log}")
        return results, proc.stdout

    def check_log(self, fmt, run_log):
        """db_bench's LOG must show the factory and settings we asked for."""
        path = os.path.join(self.db_dir(fmt), "LOG")
        with open(path, errors="replace") as f:
            text = f.read()
        m = re.search(r"Options\.table_factory: (\S+)", text)
        factory = m.group(1) if m else "none"
        if factory != fmt.factory:
            raise HarnessError(
                f"{fmt.label}: db_bench ran table factory '{factory}', not "
                f"'{fmt.factory}' (see {path} and {run_log}); an unregistered "
                f"id falls back to BlockBasedTable: is {self.args.plugin} right?")
        # The factory's own options follow its line; the built-in and ours
        # both print "identity_as_first_hash: 0|1".
        ident = re.search(r"identity_as_first_hash: (\d)", text[m.end():])
        if ident and ident.group(1) != str(int(fmt.identity)):
            raise HarnessError(f"{fmt.label}: LOG shows identity_as_first_hash"
                               f"={ident.group(1)} ({path})")
        mmap = re.search(r"Options\.allow_mmap_reads: (\d)", text)
        if not mmap or mmap.group(1) != str(int(fmt.mmap)):
            raise HarnessError(f"{fmt.label}: LOG does not show "
                               f"allow_mmap_reads: {int(fmt.mmap)} ({path})")

    def make_options_file(self, fmt):
        """OPTIONS file for ours: the base built-in's options, our factory."""
        base = FORMAT_BY_NAME[fmt.base]
        keys = self.keysets[base.keyset].present_flags
        # An empty benchmark list: db_bench only opens the DB (writing its
        # OPTIONS file) and exits.
        self.run_plain([self.args.db_bench, "--benchmarks=",
                        *self.common_flags(base, keys)], "base-" + base.name)
        names = [n for n in os.listdir(self.db_dir(base))
                 if n.startswith("OPTIONS-")]
        latest = max(names, key=lambda n: int(n.split("-")[1]))
        out = os.path.join(self.log_dir, f"{fmt.name}.options")
        self.run_plain([self.args.make_options_file,
                        f"--base={os.path.join(self.db_dir(base), latest)}",
                        f"--cf_options={fmt.ours_table}",
                        f"--db_options={fmt.ours_db}",
                        f"--expect_table_factory={fmt.factory}",
                        f"--out={out}"], "options-" + fmt.name)
        self.options_files[fmt.name] = out

    def run_plain(self, cmd, tag):
        proc = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            raise HarnessError(f"{tag} failed: {' '.join(cmd)}\n{proc.stdout}")


def sst_files(db_dir):
    return [os.path.join(db_dir, n) for n in os.listdir(db_dir)
            if n.endswith(".sst")]


def check_loaded(fmt, db_dir, stdout):
    """One level holds all the data, in files of the format's magic number."""
    # levelstats prints "Level Files Size(MB)" then one row per level.
    table = stdout.split("Level Files Size(MB)", 1)[-1]
    levels = [int(m.group(1)) for m in
              re.finditer(r"^\s*(\d+)\s+(\d+)\s+[\d.]+\s*$", table, re.M)
              if int(m.group(2)) > 0]
    if len(levels) != 1:
        raise HarnessError(f"{fmt.label}: data in levels {levels}, not one")
    files = sst_files(db_dir)
    for path in files:
        with open(path, "rb") as f:
            f.seek(-8, os.SEEK_END)
            magic = int.from_bytes(f.read(8), "little")
        if magic not in fmt.magic:
            raise HarnessError(f"{path}: magic number {magic:#x} is not "
                               f"{fmt.label}'s")
    return sum(os.path.getsize(p) for p in files) / 1e6


# ---- the measurement plan ----------------------------------------------------

class Progress:
    def __init__(self, total):
        self.total = total
        self.done = 0
        self.start = time.monotonic()

    def step(self, text):
        self.done += 1
        elapsed = time.monotonic() - self.start
        left = elapsed / self.done * (self.total - self.done)
        print(f"[{self.done:3d}/{self.total} {fmt_time(elapsed)}, "
              f"~{fmt_time(left)} left] {text}", flush=True)


def fmt_time(seconds):
    return f"{int(seconds) // 60}m{int(seconds) % 60:02d}s"


def plan_reads(formats, workloads, threads, keysets):
    """(workload, threads, format) in measuring order, formats innermost."""
    return [(w, t, f) for w in workloads for t in threads for f in formats
            if not w.absent or keysets[f.keyset].absent_flags]


def measure(args, formats, workloads, keysets, runner, samples):
    ours = [f for f in formats if f.ours_table]
    loads = 1 if args.load_once else args.reps
    progress = Progress(len(ours) + loads * len(formats) + args.reps * len(
        plan_reads(formats, workloads, args.threads, keysets)))
    for fmt in ours:
        runner.make_options_file(fmt)
        progress.step(f"OPTIONS file for {fmt.label}: "
                      f"{runner.options_files[fmt.name]}")

    for rep in range(args.reps):
        seed = args.seed + rep  # the same keys for every format in a rep
        # Rotating the order spreads the drift of the machine over formats.
        order = formats[rep % len(formats):] + formats[:rep % len(formats)]
        for fmt in order if rep < loads else ():
            keys = keysets[fmt.keyset].present_flags
            results, stdout = runner.run(
                fmt, keys, ["fillseq", "compact", "levelstats"],
                ["--threads=1", f"--seed={seed}", "--use_existing_db=0"],
                f"r{rep + 1}-load-{fmt.name}")
            build = results["fillseq"][1] + results["compact"][1]
            size = check_loaded(fmt, runner.db_dir(fmt), stdout)
            samples.add(fmt, "build_s", 1, build)
            samples.add(fmt, "compact_s", 1, results["compact"][1])
            samples.add(fmt, "size_mb", 1, size)
            progress.step(f"rep {rep + 1}/{args.reps} load {fmt.label:<22}"
                          f"fillseq+compact {build:6.2f} s, {size:7.1f} MB")
        for w, t, fmt in plan_reads(order, workloads, args.threads, keysets):
            ks = keysets[fmt.keyset]
            keys = ks.absent_flags if w.absent else ks.present_flags
            # Untimed first: the format's warm-up (ours reads its whole
            # files, BlockBasedTable fills its block cache), then one pass of
            # the same reads (mapped files fault their pages in), so the
            # timed pass sees the tables as a running DB holds them.
            results, _ = runner.run(
                fmt, keys, [*fmt.warmup, w.benchmark, w.benchmark],
                [f"--threads={t}", f"--reads={args.reads}", f"--seed={seed}",
                 "--use_existing_db=1", *w.flags()],
                f"r{rep + 1}-{w.name}-t{t}-{fmt.name}")
            ops, _, found, of = results[w.benchmark]
            # Present reads must find every key, absent ones none; MultiGet
            # reads whole batches only.
            if not args.reads - w.batch < of <= args.reads or \
                    found != (0 if w.absent else of):
                raise HarnessError(f"{fmt.label} {w.name}: found {found} of "
                                   f"{of} keys")
            samples.add(fmt, w.name, t, ops)
            progress.step(f"rep {rep + 1}/{args.reps} {w.name:<10} t={t} "
                          f"{fmt.label:<22}{ops / 1e6:6.3f} Mops/s")


class Samples:
    """Every measurement: (source, format, metric, threads) -> [per rep]."""

    def __init__(self):
        self.values = {}

    def add(self, fmt, metric, threads, value, source="db_bench"):
        name = fmt if isinstance(fmt, str) else fmt.name
        self.values.setdefault((source, name, metric, threads), []).append(
            value)

    def get(self, fmt, metric, threads, source="db_bench"):
        return self.values.get((source, fmt, metric, threads), [])

    def median(self, fmt, metric, threads, source="db_bench"):
        v = self.get(fmt, metric, threads, source)
        if not v:
            raise KeyError((fmt, metric, threads))
        return statistics.median(v)


# ---- TableReader micro-benchmarks (Google Benchmark) -------------------------

# table_reader_bench's names -> ours and the built-in it is compared with;
# ours loaded (huge pages), as the DB-level runs read it.
MICRO_PAIRS = [("ours_loaded", "builtin_cuckoo"),
               ("ours_identity_loaded", "builtin_cuckoo_identity")]
(MICRO_OURS, MICRO_BUILTIN), (MICRO_OURS_ID, MICRO_BUILTIN_ID) = MICRO_PAIRS
MICRO_ROWS = [  # (title, benchmark name pattern with {f} for the format)
    ("Get present, 1 thread", "Get/present/{f}/real_time/threads:1"),
    ("Get present, 2 threads", "Get/present/{f}/real_time/threads:2"),
    ("Get absent, 1 thread", "Get/absent/{f}/real_time/threads:1"),
    ("Get absent, 2 threads", "Get/absent/{f}/real_time/threads:2"),
    ("MultiGet, batch 8", "MultiGet/{f}/8/real_time"),
    ("MultiGet, batch 16", "MultiGet/{f}/16/real_time"),
    ("MultiGet, batch 32", "MultiGet/{f}/32/real_time"),
    ("MultiGet absent, batch 32", "MultiGetAbsent/{f}/32/real_time"),
]


NS_PER = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}  # Google Benchmark units


def run_micro(args, samples, log_dir):
    """Runs table_reader_bench once per rep; returns a warning or None."""
    env = dict(os.environ, CUCKOO_BENCH_KEYS=str(args.micro_keys),
               CUCKOO_BENCH_DIR=args.db_dir)
    # Line-buffered, so that its console lines show progress as they come.
    stdbuf = [shutil.which("stdbuf"), "-oL"] if shutil.which("stdbuf") else []
    warnings = []
    for rep in range(args.reps):
        out = os.path.join(log_dir, f"table_reader_bench-{rep + 1}.json")
        # One process per rep, not --benchmark_enable_random_interleaving: the
        # bench builds its tables lazily without a lock, so a 2-thread
        # benchmark that runs first for a format crashes it. PlainTable is
        # left out: it does not build there now ("Corrupted key found during
        # next key read").
        cmd = [args.table_reader_bench, "--benchmark_filter=-plain",
               f"--benchmark_min_time={args.micro_min_time}",
               f"--benchmark_out={out}", "--benchmark_out_format=json"]
        print(f"table_reader_bench rep {rep + 1}/{args.reps}: "
              f"{args.micro_keys} keys (tables are built first)", flush=True)
        proc = subprocess.Popen(stdbuf + cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            if "/" in line or line.startswith("Dram"):
                print("  " + line.rstrip(), flush=True)
        proc.wait()
        try:
            with open(out) as f:
                runs = [b for b in json.load(f)["benchmarks"]
                        if b.get("run_type") == "iteration"]
        except (OSError, ValueError, KeyError) as e:
            raise HarnessError(f"table_reader_bench ({proc.returncode}) left "
                               f"no usable {out}: {e}")
        if not runs or any(b.get("error_occurred") for b in runs):
            raise HarnessError(f"table_reader_bench reported errors: {out}")
        if proc.returncode != 0:
            # It writes its JSON before main returns; a crash after that (seen:
            # SIGSEGV in ~TableHarness during exit) leaves complete results.
            warnings.append(f"rep {rep + 1} exited with {proc.returncode} "
                            f"after writing complete results")
        for b in runs:
            threads = b.get("threads", 1)
            samples.add(b["run_name"], "items_per_second", threads,
                        b["items_per_second"], "micro")
            samples.add(b["run_name"], "ns_per_op", threads,
                        b["real_time"] * NS_PER[b["time_unit"]], "micro")
            if "allocs_per_op" in b:
                samples.add(b["run_name"], "allocs_per_op", threads,
                            b["allocs_per_op"], "micro")
    if warnings:
        return "table_reader_bench: " + "; ".join(warnings)
    return None


# ---- cache lines read per lookup (callgrind's cache simulator) --------------

# Small enough that every line of a table the size of LINES_KEYS keys misses
# L1 unless this very lookup read it already; the LL holds the fingerprint
# array (ours) but not the data, as a real L3 does at --num keys.
LINES_CACHES = ["--D1=32768,8,64", "--LL=1048576,16,64"]
LINES_KEYS = 100000
LINES_LOOKUPS = 20000
LINES_FORMATS = [name for pair in MICRO_PAIRS for name in pair]


def run_lines(args, samples, log_dir):
    """Counts the cache lines a Get reads: table_reader_bench's RunLookups
    under callgrind, after one lookup of every key (so ours has verified its
    chunks). Prefetches are not loads there: lines only prefetched are not
    counted. Returns a warning, or None."""
    valgrind = shutil.which("valgrind")
    if not valgrind:
        return "valgrind not found: cache lines per lookup not measured"
    env = dict(os.environ, CUCKOO_BENCH_KEYS=str(LINES_KEYS),
               CUCKOO_BENCH_DIR=args.db_dir)
    for fmt in LINES_FORMATS:
        for kind in ("present", "absent"):
            out = os.path.join(log_dir, f"callgrind-{fmt}-{kind}.out")
            env["CUCKOO_LOOKUPS"] = f"{fmt}:{kind}:{LINES_LOOKUPS}"
            cmd = [valgrind, "--tool=callgrind", "--cache-sim=yes",
                   *LINES_CACHES, "--collect-atstart=no",
                   "--toggle-collect=*RunLookups*",
                   f"--callgrind-out-file={out}", args.table_reader_bench]
            print(f"cache lines: {fmt} {kind} under callgrind", flush=True)
            proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                raise HarnessError(f"{' '.join(cmd)} failed:\n"
                                   + proc.stdout[-2000:])
            with open(out) as f:
                text = f.read()
            events = re.search(r"^events: (.+)$", text, re.M).group(1).split()
            totals = dict(zip(events, map(int, re.search(
                r"^summary: (.+)$", text, re.M).group(1).split())))
            samples.add(fmt + "/" + kind, "l1_lines", 1,
                        totals["D1mr"] / LINES_LOOKUPS, "lines")
            samples.add(fmt + "/" + kind, "ll_lines", 1,
                        totals["DLmr"] / LINES_LOOKUPS, "lines")
    return None


def lines_table(samples):
    rows = [["cache lines read per Get", "ours L1", "ours LL", "builtin L1",
             "builtin LL"]]
    for ours, builtin in MICRO_PAIRS:
        prefix = "identity, " if "identity" in ours else ""
        for kind in ("present", "absent"):
            def value(fmt, metric):
                v = samples.get(fmt + "/" + kind, metric, 1, "lines")
                return f"{v[0]:.2f}" if v else "-"
            rows.append([prefix + kind] + [
                value(f, m) for f in (ours, builtin)
                for m in ("l1_lines", "ll_lines")])
    return (f"callgrind cache simulation, {LINES_KEYS} keys, {LINES_LOOKUPS} "
            f"random Gets: L1 = lines missing a 32 KiB L1D (lines the Get "
            f"read), LL = lines missing a 1 MiB last level (from memory)\n"
            + render(rows) + "\n")


# ---- the report --------------------------------------------------------------

def num(v):
    """About three significant digits, no exponent."""
    a = abs(v)
    if a >= 100 or a == 0:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if a >= 0.1 else f"{v:.3f}"


def cell(values, scale=1.0):
    if not values:
        return "-"
    lo, mid, hi = (num(x / scale) for x in
                   (min(values), statistics.median(values), max(values)))
    return mid if lo == hi else f"{mid} [{lo}-{hi}]"


def ratio(numerator, denominator):
    return f"{numerator / denominator:.2f}x" if denominator > 0 else "-"


def render(rows):
    """Left-aligned first column, right-aligned others, a rule under row 0."""
    width = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for i, r in enumerate(rows):
        lines.append("  ".join(
            r[c].ljust(width[c]) if c == 0 else r[c].rjust(width[c])
            for c in range(len(r))).rstrip())
        if i == 0:
            lines.append("-" * len(lines[0]))
    return "\n".join(lines)


def db_bench_table(args, keyset, formats, samples):
    """Absolute figures of one data set, then ours/anchor for each anchor."""
    mine = [f for f in formats if f.keyset == keyset.name]
    if not mine:
        return ""
    anchors = [(o, b) for o in mine if o.ours_table
               for b in mine if not b.ours_table]
    rows = [["metric", "thr"] + [f.label for f in mine] +
            [f"{o.name}/{b.name}" for o, b in anchors]]

    def add_row(title, metric, threads, scale, speed):
        values = {f.name: samples.get(f.name, metric, threads) for f in mine}
        if not any(values.values()):
            return
        row = [title, str(threads)] + [cell(values[f.name], scale)
                                       for f in mine]
        for o, b in anchors:
            if values[o.name] and values[b.name]:
                mo = statistics.median(values[o.name])
                mb = statistics.median(values[b.name])
                # Times become a speed ratio (anchor/ours), as the issue's
                # "build >= 1.0x"; rates and sizes stay ours/anchor.
                row.append(ratio(mb, mo) if speed else ratio(mo, mb))
            else:
                row.append("-")
        rows.append(row)

    for w in WORKLOADS:
        for t in args.threads:
            add_row(f"{w.title} (Mops/s)", w.name, t, 1e6, False)
    for metric, (title, unit) in LOAD_METRICS.items():
        add_row(f"{title} ({unit})", metric, 1, 1.0, unit == "s")
    return (f"{keyset.title}, {args.value_size}-byte values, {args.num} keys, "
            f"{args.reads} reads per thread; median [min-max] of "
            f"{args.reps} reps" + (", each format loaded once (one build "
                                   "sample)" if args.load_once else "") +
            "\n" + render(rows) + "\n"
            "ratios of medians: rates ours/anchor, times anchor/ours "
            "(> 1: ours faster), sizes ours/anchor (< 1: ours smaller)\n")


def targets_table(title, targets, value_of):
    """The read-performance targets next to the ratios of this run."""
    rows = [["target (" + title + ")", "measured", "goal", "met"]]
    for name, goal, compute in targets:
        try:
            r = compute(value_of)
        except (KeyError, ZeroDivisionError):
            continue  # not measured in this run
        if goal is None:  # informative only
            rows.append([name, num(r), "", ""])
        elif goal == 0:  # "zero" targets
            rows.append([name, num(r), "0", "yes" if r == 0 else "NO"])
        elif isinstance(goal, tuple):  # ("<=", bound): smaller is better
            rows.append([name, f"{r:.3f}x", f"<= {goal[1]}x",
                         "yes" if r <= goal[1] else "NO"])
        else:
            rows.append([name, f"{r:.3f}x", f">= {goal}x",
                         "yes" if r >= goal else "NO"])
    return render(rows) + "\n" if len(rows) > 1 else ""


def m_db(samples):
    return lambda f, metric, t=1: samples.median(f, metric, t)


# Read performance targets (issue 11), each at every thread count measured;
# a row whose numbers this run lacks is left out.
THREAD_COUNTS = (1, 2, 4, 8, 16)


def per_thread(name, goal, ours, anchor, metric):
    return [(f"{name} {t}t", goal,
             lambda m, t=t: m(ours, metric, t) / m(anchor, metric, t))
            for t in THREAD_COUNTS]


DB_TARGETS = (
    per_thread("Get present, ours/CuckooTable", 1.3, "ours", "cuckoo", "get")
    + per_thread("Get identity, ours/CuckooTable (both identity)", 1.3,
                 "ours_id", "cuckoo_id", "get")
    + per_thread("MultiGet 32, ours/CuckooTable", 1.5, "ours", "cuckoo",
                 "multiget32")
    + per_thread("Get present, ours/BlockBasedTable (tuned)", 3.0, "ours",
                 "block", "get")
    + per_thread("Get absent, ours/BlockBasedTable (tuned)", None, "ours",
                 "block", "get_absent")
    + [("SST size, ours/CuckooTable (fixed-size entries)", ("<=", 1.1),
        lambda m: m("ours", "size_mb") / m("cuckoo", "size_mb")),
       ("build fillseq+compact, CuckooTable time/ours time", None,
        lambda m: m("cuckoo", "build_s") / m("ours", "build_s"))])


def m_micro(samples):
    return lambda name, metric="items_per_second", t=1: samples.median(
        name, metric, t, "micro")


GET_OURS = f"Get/present/{MICRO_OURS}/real_time/threads:1"
MICRO_TARGETS = [
    ("Get present 1t, ours/builtin", 1.8,
     lambda m: m(GET_OURS) /
     m(f"Get/present/{MICRO_BUILTIN}/real_time/threads:1")),
    ("Get identity 1t, ours/builtin (both identity)", 1.5,
     lambda m: m(f"Get/present/{MICRO_OURS_ID}/real_time/threads:1") /
     m(f"Get/present/{MICRO_BUILTIN_ID}/real_time/threads:1")),
    # A table that does nothing but read the entry (table_reader_bench's
    # one_read_floor), against the built-in: about the most any table could
    # reach, though on a VM each process's memory is backed differently.
    ("Get present 1t, one-read floor/builtin (one read, no work)", None,
     lambda m: m("Get/present/one_read_floor/real_time/threads:1") /
     m(f"Get/present/{MICRO_BUILTIN}/real_time/threads:1")),
    ("Get identity 1t, one-read floor/builtin (one read, no work)", None,
     lambda m: m("Get/present/one_read_floor_identity/real_time/threads:1") /
     m(f"Get/present/{MICRO_BUILTIN_ID}/real_time/threads:1")),
    ("Get absent 1t, ours/builtin", None,
     lambda m: m(f"Get/absent/{MICRO_OURS}/real_time/threads:1") /
     m(f"Get/absent/{MICRO_BUILTIN}/real_time/threads:1")),
    ("MultiGet 32, ours/builtin", 3.0,
     lambda m: m(f"MultiGet/{MICRO_OURS}/32/real_time") /
     m(f"MultiGet/{MICRO_BUILTIN}/32/real_time")),
    # The batched floor (one_read_floor's MultiGet): every read of a batch in
    # flight at once, so about the most any table's MultiGet could reach.
    ("MultiGet 8, ours/batched floor", 0.7,
     lambda m: m(f"MultiGet/{MICRO_OURS}/8/real_time") /
     m("MultiGet/one_read_floor/8/real_time")),
    ("MultiGet 16, ours/batched floor", 0.7,
     lambda m: m(f"MultiGet/{MICRO_OURS}/16/real_time") /
     m("MultiGet/one_read_floor/16/real_time")),
    ("MultiGet 32, ours/batched floor", 0.7,
     lambda m: m(f"MultiGet/{MICRO_OURS}/32/real_time") /
     m("MultiGet/one_read_floor/32/real_time")),
    # Absent keys in a batch at least as cheap as in single Gets (keys/s).
    ("MultiGet absent 32 / Get absent 1t, ours (per key)", 1.0,
     lambda m: m(f"MultiGetAbsent/{MICRO_OURS}/32/real_time") /
     m(f"Get/absent/{MICRO_OURS}/real_time/threads:1")),
    # Counted process-wide, so only the 1-thread figures are clean: with two
    # threads, one thread's setup allocations land in the other's loop.
    ("allocations per Get, ours present 1t", 0,
     lambda m: m(GET_OURS, "allocs_per_op")),
    ("allocations per Get, ours absent 1t", 0,
     lambda m: m(f"Get/absent/{MICRO_OURS}/real_time/threads:1",
                 "allocs_per_op")),
    ("DRAM pointer chase (ns per dependent load)", None,
     lambda m: m("DramPointerChase", "ns_per_op")),
    ("ours Get present 1t (ns) / DRAM pointer chase (ns)", None,
     lambda m: m(GET_OURS, "ns_per_op") / m("DramPointerChase", "ns_per_op")),
]


def micro_table(args, samples):
    rows = [["TableReader (table_reader_bench)", "ours (Mops/s)",
             "builtin (Mops/s)", "ours/builtin"]]
    for ours, builtin in MICRO_PAIRS:
        prefix = "identity: " if "identity" in ours else ""
        for title, pattern in MICRO_ROWS:
            threads = 2 if "threads:2" in pattern else 1
            a = samples.get(pattern.format(f=ours), "items_per_second",
                            threads, "micro")
            b = samples.get(pattern.format(f=builtin), "items_per_second",
                            threads, "micro")
            if a and b:
                rows.append([prefix + title, cell(a, 1e6), cell(b, 1e6),
                             ratio(statistics.median(a),
                                   statistics.median(b))])
    return (f"{args.micro_keys} keys (16-byte, or 8-byte for identity), "
            f"100-byte values; median [min-max] of {args.reps} reps\n"
            + render(rows) + "\n")


# ---- the plot ----------------------------------------------------------------

def plot(args, formats, samples, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plot: matplotlib is missing (apt install python3-matplotlib)")
        return None
    workloads = [w for w in WORKLOADS if any(
        samples.get(f.name, w.name, t) for f in formats for t in args.threads)]
    micro = [(t, p) for t, p in MICRO_ROWS if "threads:2" not in p]
    with_micro = bool(samples.get(GET_OURS, "items_per_second", 1, "micro"))
    # Workloads, build time, file size and maybe the micro level, in 2 rows.
    columns = (len(workloads) + 3 + with_micro) // 2
    fig, grid = plt.subplots(2, columns, figsize=(5 * columns, 9))
    axes = iter(grid.flat)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]

    def bars(ax, labels, series, ylabel, ptitle):
        """Grouped bars: series = [(legend, [samples per label])], min-max."""
        width = 0.8 / len(series)
        for i, (legend, per_label) in enumerate(series):
            xs, meds, lo, hi = [], [], [], []
            for x, v in enumerate(per_label):
                if v:
                    med = statistics.median(v)
                    xs.append(x + (i - (len(series) - 1) / 2) * width)
                    meds.append(med)
                    lo.append(med - min(v))
                    hi.append(max(v) - med)
            ax.bar(xs, meds, width, yerr=[lo, hi], capsize=3,
                   color=colors[i % len(colors)], label=legend)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
        ax.set_title(ptitle, fontsize=10)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)

    # One panel per read workload: ops/s by format and thread count.
    for w in workloads:
        shown = [f for f in formats
                 if any(samples.get(f.name, w.name, t) for t in args.threads)]
        bars(next(axes), [f.label for f in shown],
             [(f"{t} thread{'s' if t > 1 else ''}",
               [[v / 1e6 for v in samples.get(f.name, w.name, t)]
                for f in shown]) for t in args.threads],
             "Mops/s (keys/s for MultiGet)", w.title)
    shown = [f for f in formats if samples.get(f.name, "build_s", 1)]
    bars(next(axes), [f.label for f in shown],
         [(LOAD_METRICS[m][0].strip(), [samples.get(f.name, m, 1)
                                        for f in shown])
          for m in ("build_s", "compact_s")],
         "seconds", "Table build, 1 thread (lower is better)")
    sizes = [samples.get(f.name, "size_mb", 1) for f in shown]
    bars(next(axes), [f.label for f in shown], [("SST files", sizes)], "MB",
         "SST file size (lower is better)")
    # The TableReader level, when it ran: ours vs the built-in, 1 thread.
    if with_micro:
        bars(next(axes), [t.replace(", 1 thread", "") for t, _ in micro],
             [(label, [[v / 1e6 for v in samples.get(
                 p.format(f=name), "items_per_second", 1, "micro")]
                 for _, p in micro])
              for name, label in ((MICRO_OURS, "CuckooHashTable"),
                                  (MICRO_BUILTIN, "CuckooTable"))],
             "Mops/s", "TableReader level (table_reader_bench), 1 thread")
    for unused in axes:
        unused.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---- main --------------------------------------------------------------------

def resolve_db_bench(parser, args):
    """Sets args.db_bench, args.lib (None: nothing to preload) and
    args.plugin (where ours comes from, for the report) from --build: an
    in-tree build's own db_bench, else the stock one with the system-mode
    build's librocksdb_cuckoo.so preloaded."""
    intree = intree_rocksdb(args.build)
    if intree:
        # RocksDB built with the plugin: nothing to preload.
        if args.lib:
            parser.error("--lib: the in-tree db_bench has the plugin "
                         "compiled in")
        args.db_bench = args.db_bench or os.path.join(intree, "db_bench")
        args.lib = None
        args.plugin = f"the plugin compiled into {args.db_bench}"
    else:
        args.db_bench = args.db_bench or shutil.which("db_bench") or \
            "/usr/bin/db_bench"
        args.lib = os.path.abspath(args.lib or os.path.join(
            args.build, "librocksdb_cuckoo.so"))
        args.plugin = args.lib


def parse_args():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--num", type=int, default=500000,
                   help="keys loaded into every format (default 500000, in "
                        "under 10 minutes on 2 busy cores; the issue's full "
                        "run: 5000000)")
    p.add_argument("--reads", type=int, default=200000,
                   help="lookups per thread per read measurement")
    p.add_argument("--reps", type=int, default=3,
                   help="repetitions of every measurement (>= 3 for a report)")
    p.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2,4")
    p.add_argument("--formats", default="ours,cuckoo,plain,block,ours_id,"
                   "cuckoo_id", help="from: " + ",".join(FORMAT_BY_NAME))
    p.add_argument("--workloads", default=",".join(WORKLOAD_BY_NAME),
                   help="from: " + ",".join(WORKLOAD_BY_NAME))
    p.add_argument("--key_size", type=int, default=16,
                   help="key bytes of the non-identity data set (>= 9: an "
                        "8-byte prefix and the key's index)")
    p.add_argument("--value_size", type=int, default=100)
    p.add_argument("--cache_mb", type=int, default=0,
                   help="BlockBasedTable's block cache (default: twice the "
                        "raw data, so it holds everything)")
    p.add_argument("--load_once", action="store_true",
                   help="load every format once and repeat only the reads "
                        "(for a large --num, where loading dominates the run; "
                        "the build figures then have one sample)")
    p.add_argument("--seed", type=int, default=1000,
                   help="db_bench --seed of the first rep (rep r: seed + r)")
    p.add_argument("--build", default=os.path.join(REPO, "build"),
                   help="build folder giving the defaults of the next three")
    p.add_argument("--lib", help="librocksdb_cuckoo.so to preload")
    p.add_argument("--make_options_file", help="the make_options_file tool")
    p.add_argument("--table_reader_bench", help="for --micro")
    p.add_argument("--db_bench", help="the db_bench to drive (default: the "
                   "in-tree build's, else the stock one)")
    p.add_argument("--db_bench_arg", action="append", default=[],
                   help="extra flag for every db_bench run (repeatable), "
                        "e.g. --db_bench_arg=--statistics=1")
    p.add_argument("--micro", action="store_true",
                   help="also run table_reader_bench (TableReader level)")
    p.add_argument("--micro_keys", type=int,
                   help="keys of the micro-benchmark tables (default --num)")
    p.add_argument("--micro_min_time", type=float, default=0.2,
                   help="Google Benchmark --benchmark_min_time, seconds")
    p.add_argument("--db_dir",
                   help="where the DBs live during the run (default: the "
                        "--out prefix + '-db')")
    p.add_argument("--out", help="prefix of the .csv, .txt, .png and -logs/ "
                   "written (default bench-out/db_bench_compare)")
    run_folder.add_results_flag(p, "db_bench_compare_<num>")
    p.add_argument("--keep_db", action="store_true",
                   help="keep the DBs after the run")
    args = p.parse_args()

    args.threads = [int(t) for t in args.threads.split(",")]
    if args.results:
        args.out = run_folder.out_in_folder(
            args.build, args.out,
            "db_bench_compare_" + run_folder.short_count(args.num))
        # The DBs are scratch: not under results/.
        args.db_dir = args.db_dir or os.path.join(
            REPO, "bench-out", os.path.basename(args.out) + "-db")
    args.out = args.out or os.path.join(REPO, "bench-out", "db_bench_compare")
    resolve_db_bench(p, args)
    args.make_options_file = args.make_options_file or os.path.join(
        args.build, "db_bench_ext", "make_options_file")
    args.table_reader_bench = args.table_reader_bench or os.path.join(
        args.build, "db_bench_ext", "table_reader_bench")
    args.micro_keys = args.micro_keys or args.num
    if args.cache_mb == 0:
        args.cache_mb = 64 + 2 * args.num * (args.key_size +
                                             args.value_size) // (1 << 20)
    args.db_dir = os.path.abspath(args.db_dir or args.out + "-db")
    for name in args.formats.split(",") + args.workloads.split(","):
        if name not in FORMAT_BY_NAME and name not in WORKLOAD_BY_NAME:
            p.error(f"unknown format or workload '{name}'")
    if args.key_size < 9 or args.num < 1 or args.reads < 1 or args.reps < 1:
        p.error("need --key_size >= 9, --num, --reads, --reps >= 1")
    needed = [args.db_bench, args.make_options_file] + (
        [args.lib] if args.lib else []) + (
        [args.table_reader_bench] if args.micro else [])
    for path in needed:
        if not os.path.isfile(path):
            p.error(f"{path} is missing (build it, or point the flag at it)")
    return args


def intree_rocksdb(build):
    """The RocksDB tree an in-tree build folder links (its CMake cache's
    CUCKOO_INTREE_ROCKSDB), or None for a system-mode build."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            m = re.search(r"^CUCKOO_INTREE_ROCKSDB:PATH=(.+)$", f.read(), re.M)
    except OSError:
        return None
    return m.group(1).strip() if m else None


def db_bench_version(args):
    """The 'RocksDB: version x.y.z' line db_bench prints (it checks it runs)."""
    proc = subprocess.run([args.db_bench, "--benchmarks=", "--db=" +
                           os.path.join(args.db_dir, "version")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    m = re.search(r"RocksDB:\s+version (\S+)", proc.stdout)
    if proc.returncode != 0 or not m:
        raise HarnessError(f"{args.db_bench} does not run:\n{proc.stdout}")
    return m.group(1)


def write_csv(path, args, samples):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "format", "metric", "threads", "rep", "value",
                    "num", "key_size", "value_size", "reads"])
        for (source, fmt, metric, threads), values in samples.values.items():
            if source in ("micro", "lines"):
                keys = args.micro_keys if source == "micro" else LINES_KEYS
                key_size = 8 if "identity" in fmt else 16
            else:
                keys = args.num
                key_size = 8 if FORMAT_BY_NAME[fmt].keyset == "int" \
                    else args.key_size
            for rep, v in enumerate(values, 1):
                w.writerow([source, fmt, metric, threads, rep, f"{v:.6g}",
                            keys, key_size, args.value_size, args.reads])


def main():
    args = parse_args()
    formats = [FORMAT_BY_NAME[n] for n in args.formats.split(",")]
    workloads = [WORKLOAD_BY_NAME[n] for n in args.workloads.split(",")]
    keysets = key_sets(args.key_size)
    log_dir = args.out + "-logs"
    if args.results:
        name = os.path.basename(args.out)
        run_folder.record_argv(os.path.dirname(args.out),
                               [name + ext for ext in (".txt", ".csv", ".png")])
    shutil.rmtree(log_dir, ignore_errors=True)
    os.makedirs(log_dir)
    # Every run preloads this copy: a rebuild of the library during the run
    # cannot mix two versions into one report.
    if args.lib:
        lib_source, args.lib = args.lib, shutil.copy(args.lib, log_dir)
        driven = f"stock db_bench + {os.path.basename(args.lib)}"
    else:
        lib_source = None
        driven = "in-tree db_bench (plugin compiled in, release build)"
    os.makedirs(args.db_dir, exist_ok=True)
    start = time.monotonic()
    try:
        version = db_bench_version(args)
        host = (f"{platform.node()}, {os.cpu_count()} cores, "
                f"db_bench {version}")
        print(f"db_bench_compare: {host}; {args.num} keys, reads {args.reads}"
              f"/thread, threads {args.threads}, {args.reps} reps, formats "
              f"{[f.name for f in formats]}\n  "
              + (f"preload {lib_source} (as {args.lib})" if lib_source
                 else f"db_bench {args.db_bench}, no preload")
              + f"\n  logs {log_dir}", flush=True)
        samples = Samples()
        measure(args, formats, workloads, keysets,
                Runner(args, keysets, log_dir), samples)
        micro_warning = run_micro(args, samples, log_dir) if args.micro \
            else None
        lines_warning = run_lines(args, samples, log_dir) if args.micro \
            else None
    except HarnessError as e:
        sys.exit(f"db_bench_compare: FAILED: {e}")
    finally:
        if not args.keep_db:
            shutil.rmtree(args.db_dir, ignore_errors=True)

    report = [f"db_bench_compare {datetime.datetime.now():%Y-%m-%d %H:%M}, "
              f"{host}, {driven}\n"]
    for ks in keysets.values():
        report.append(db_bench_table(args, ks, formats, samples))
    report.append(targets_table("DB level", DB_TARGETS,
                                m_db(samples)))
    if args.micro:
        report.append(micro_table(args, samples))
        report.append(targets_table("TableReader level",
                                    MICRO_TARGETS, m_micro(samples)))
        if micro_warning:
            report.append("WARNING: " + micro_warning + "\n")
        report.append(lines_warning and "WARNING: " + lines_warning + "\n"
                      or lines_table(samples))
    text = "\n".join(r for r in report if r)
    print("\n" + text)
    with open(args.out + ".txt", "w") as f:
        f.write(text)
    write_csv(args.out + ".csv", args, samples)
    png = plot(args, formats, samples, args.out + ".png",
               f"{driven}: "
               f"{args.num} keys, {args.value_size}-byte values, {args.reads} "
               f"reads/thread, median of {args.reps} reps (bars: min-max); "
               f"{host}")
    print(f"csv {args.out}.csv, report {args.out}.txt"
          + (f", plot {png}" if png else "")
          + f"; {fmt_time(time.monotonic() - start)}")


if __name__ == "__main__":
    main()

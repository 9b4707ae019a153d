#!/usr/bin/python3
"""What building tables costs: CuckooHashTable against RocksDB's formats.

Drives an in-tree RocksDB release's own db_bench (--build at an in-tree build
folder, e.g. build-intree-11.8.1: the plugin is compiled in) or, with a
system-mode build folder, the stock db_bench with librocksdb_cuckoo.so
preloaded. Formats: ours (CuckooHashTable, allow_mmap_reads=false), ours
with the striped_hash memtable, ours with slot_ordered=false (the layout
every file with values of varied sizes gets anyway), BlockBasedTable (bloom
10 bits: the anchor), BlockBasedTable tuned for point lookups (data-block
hash index, index and filter held by the reader, a block cache that holds
the DB: the anchor of the read-modify-write targets), PlainTable and
RocksDB's CuckooTable, each through db_bench's own flags, ours through an
OPTIONS file (db_bench has no flag for it) that make_options_file derives
from the one db_bench wrote for CuckooTable with the very flags of
every run, only the table factory and allow_mmap_reads replaced (a base
written for BlockBasedTable carries its 30-day ttl, which RocksDB refuses
with any other table).

Workloads, each on a fresh DB, one thread, --num keys of --key_size bytes
with --value_size-byte values, WAL off, compression off, 16 MiB write
buffers and target files, a 64 MiB L1, 2 background jobs, every format
given the same flags:
  fill_random   fillrandom,waitforcompaction with --statistics=1: the write
                rate; the time until compactions finish (fillrandom's start
                to the last flush or compaction finished before shutdown, in
                the LOG's event times: db_bench's waitforcompaction first
                sleeps 5 s, so its own time says nothing); flush and
                compaction output MB/s (bytes written over the jobs' time,
                rocksdb.db.flush.micros and rocksdb.compaction.times.micros);
                the write stall time; the write amplification (flush plus
                compaction bytes over the bytes written); the .sst bytes at
                the end (after db_bench's close, which flushes the last
                memtable).
  fill_seq_compact  fillseq,compact: the write rate, fillseq + compact time.
  overwrite, update_random, read_random_write_random (90% reads),
  read_while_writing (one reader beside db_bench's writer)
                a load (fillrandom,waitforcompaction), then the workload in
                a second db_bench on the same DB (--use_existing_db=1),
                --ops operations: its ops/s (the reader's for
                read_while_writing; readrandomwriterandom prints no separate
                read rate).
  ingest        ingest_bench (db_bench cannot): SstFileWriter writes the keys
                sorted into --ingest_files files, one IngestExternalFile
                moves them in: keys/s of each step and of both.
Within every repetition the formats take turns, workload by workload
(round robin, the same order each time). A built-in that fails is reported
as "cannot run" with its error (RocksDB 11.8.1 ingests neither PlainTable's
files, "does not match existing comparator", nor CuckooTable's, "External
file version not found"); ours or BlockBasedTable failing stops the run. Every run is
checked: db_bench's LOG must name the expected table and memtable factories
and allow_mmap_reads, and every .sst file must carry the format's magic
number.

Writes PREFIX.txt (the report: median [min-max] per format, ratios to
BlockBasedTable, the targets met or not against their anchors), PREFIX.csv (every sample) and
PREFIX-logs/ (each db_bench output, the OPTIONS files), PREFIX from --out.
With --results they go into this run's folder under db_bench_ext/results/
(run_folder.py), named by --out's last part (default write_compare_<num>),
and the command line is added to its COMMAND.md.

    db_bench_ext/write_compare.py --build build-intree-11.8.1 --results
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
import tempfile
import time
from dataclasses import dataclass

import db_bench_compare as dbc
import run_folder
from ratio_target import RatioTarget, paired_ratios

REPO = dbc.REPO


# ---- what is compared -------------------------------------------------------

@dataclass(frozen=True)
class Format:
    name: str               # --formats word and CSV value
    label: str              # column label
    factory: str            # the table factory db_bench's LOG must name
    magic: tuple            # footer magic numbers its .sst files may carry
    mmap: bool              # allow_mmap_reads
    # db_bench flags: a built-in's that select it; ours': those of the run
    # whose OPTIONS file it starts from, added to CuckooTable's.
    flags: tuple = ()
    ours_table: str = ""    # ours: the table_factory options string
    memtable: str = "SkipListFactory"  # as db_bench's LOG names it
    # ingest_bench --options_string (KEY_SIZE: --key_size); "": no ingest
    ingest_table: str = ""
    may_fail: bool = False  # a failure is a result ("cannot run")
    identity: bool = False  # identity_as_first_hash (db_bench_compare's check)


OURS_TABLE = f"table_factory={{id={dbc.OURS_ID}}}"
CUCKOO_FLAGS = ("--use_cuckoo_table", "--mmap_read=1")
FORMATS = [
    Format("ours", "CuckooHashTable", dbc.OURS_ID, dbc.OURS_MAGIC, False,
           ours_table=OURS_TABLE, ingest_table=OURS_TABLE),
    # What fixed-size entries would cost written in key order, the layout
    # entries of varied sizes get in any case.
    Format("ours_key_ordered", "CuckooHashTable key-ordered", dbc.OURS_ID,
           dbc.OURS_MAGIC, False,
           ours_table=f"table_factory={{id={dbc.OURS_ID};slot_ordered=false}}"),
    # The memtable is set in the OPTIONS file's base run: with --options_file
    # db_bench ignores --memtablerep. Its ingest would equal ours'.
    Format("ours_striped", "CuckooHashTable+striped_hash", dbc.OURS_ID,
           dbc.OURS_MAGIC, False, flags=("--memtablerep=striped_hash",),
           ours_table=OURS_TABLE, memtable="striped_hash"),
    Format("block", "BlockBasedTable", "BlockBasedTable", dbc.BLOCK_MAGIC,
           False, flags=("--mmap_read=0", "--bloom_bits=10"),
           ingest_table="table_factory={id=BlockBasedTable;"
                        "filter_policy=bloomfilter:10:false}"),
    # The anchor of the read-modify-write targets: BlockBasedTable tuned for
    # point lookups as db_bench_compare's anchor is (a hash index in every
    # data block, index and filter held by the reader), with a block cache
    # that holds the whole DB.
    Format("block_tuned", "BlockBasedTable tuned", "BlockBasedTable",
           dbc.BLOCK_MAGIC, False,
           flags=("--mmap_read=0", "--bloom_bits=10",
                  "--use_data_block_hash_index=1",
                  "--cache_index_and_filter_blocks=0",
                  f"--cache_size={4 << 30}")),
    # db_bench's PlainTable has a hash index (hash_table_ratio 0.75), which
    # needs a prefix extractor: 8 bytes, unique per key here. With
    # --keys_per_prefix at 0 the keys stay those of the other formats.
    Format("plain", "PlainTable", "PlainTable", dbc.PLAIN_MAGIC, True,
           flags=("--use_plain_table", "--mmap_read=1", "--prefix_size=8"),
           ingest_table="table_factory={id=PlainTable;user_key_len="
                        "KEY_SIZE};prefix_extractor=rocksdb.FixedPrefix.8",
           may_fail=True),
    Format("cuckoo", "CuckooTable", "CuckooTable", dbc.CUCKOO_MAGIC, True,
           flags=CUCKOO_FLAGS, ingest_table="table_factory={id=CuckooTable}",
           may_fail=True),
]
FORMAT_BY_NAME = {f.name: f for f in FORMATS}
ANCHOR = "block"

# Every db_bench run's flags besides the format's and the workload's: the
# same sizing for every format.
COMMON_FLAGS = ("--write_buffer_size=16777216",
                "--target_file_size_base=16777216",
                "--max_bytes_for_level_base=67108864",
                "--max_background_jobs=2", "--disable_wal=1",
                "--compression_type=none", "--threads=1",
                "--progress_reports=false")


@dataclass(frozen=True)
class Metric:
    id: str
    title: str
    scale: float  # the table shows value / scale
    # "rate": ratio ours/anchor; "time": anchor/ours (> 1: ours faster);
    # "size": ours/anchor (< 1: ours smaller)
    kind: str


def rates(benchmark):
    return Metric("ops", f"{benchmark} (Kops/s)", 1e3, "rate")


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    metrics: tuple
    # A workload after a load: its db_bench benchmark and flags.
    benchmark: str = ""
    flags: tuple = ()


SIZE = Metric("size_mb", "SST files at the end (MB)", 1, "size")
WORKLOADS = [
    Workload("fill_random", "fillrandom,waitforcompaction", (
        rates("fillrandom"),
        Metric("done_s", "until compactions finish (s)", 1, "time"),
        Metric("flush_mbps", "flush output (MB/s)", 1, "rate"),
        Metric("compaction_mbps", "compaction output (MB/s)", 1, "rate"),
        Metric("stall_s", "write stall (s)", 1, "time"),
        Metric("write_amp", "write amplification", 1, "size"),
        SIZE)),
    Workload("fill_seq_compact", "fillseq,compact", (
        rates("fillseq"),
        Metric("total_s", "fillseq + compact (s)", 1, "time"), SIZE)),
    Workload("overwrite", "fillrandom load, then overwrite",
             (rates("overwrite"),), "overwrite"),
    Workload("update_random",
             "fillrandom load, then updaterandom (read-modify-write)",
             (rates("updaterandom"),), "updaterandom"),
    Workload("read_random_write_random",
             "fillrandom load, then readrandomwriterandom "
             "--readwritepercent=90 (db_bench prints no separate read rate)",
             (rates("readrandomwriterandom"),), "readrandomwriterandom",
             ("--readwritepercent=90",)),
    # db_bench's writer is a thread beside --threads readers, left out of
    # the reported rate.
    Workload("read_while_writing",
             "fillrandom load, then readwhilewriting: 1 reader beside "
             "db_bench's writer", (rates("readwhilewriting reads"),),
             "readwhilewriting"),
    Workload("ingest",
             "ingest_bench: SstFileWriter into sorted files, then one "
             "IngestExternalFile (moved)", (
                 Metric("write_kps", "SstFileWriter (Kkeys/s)", 1e3, "rate"),
                 Metric("ingest_kps", "IngestExternalFile (Kkeys/s)", 1e3,
                        "rate"),
                 Metric("total_kps", "both (Kkeys/s)", 1e3, "rate"), SIZE)),
]
WORKLOAD_BY_NAME = {w.name: w for w in WORKLOADS}

# (workload, metric, bound on the ratio that is > 1 when ours is better,
# the format it is measured against)
TARGETS = [(WORKLOAD_BY_NAME[w], m, bound, anchor)
           for w, m, bound, anchor in (
    ("fill_random", "ops", 1.2, ANCHOR),
    ("fill_random", "done_s", 1.0, ANCHOR),
    ("fill_random", "flush_mbps", 1.0, ANCHOR),
    ("fill_random", "compaction_mbps", 1.0, ANCHOR),
    ("fill_seq_compact", "ops", 1.0, ANCHOR),
    ("fill_seq_compact", "total_s", 1.0, ANCHOR),
    ("ingest", "total_kps", 1.0, ANCHOR),
    ("update_random", "ops", 2.0, "block_tuned"),
    ("read_random_write_random", "ops", 2.0, "block_tuned"))]


def can_run(workload, fmt):
    return workload.name != "ingest" or bool(fmt.ingest_table)


# ---- running db_bench and ingest_bench --------------------------------------

class CannotRun(dbc.HarnessError):
    """The tool failed: a result for a format that may fail."""


@dataclass
class Run:
    results: dict  # benchmark -> (ops/s, seconds)
    came: dict     # benchmark -> time.time() when its result line came
    stdout: str
    log: str


class Runner(dbc.Runner):
    """Runs db_bench and ingest_bench for a format and checks what ran.
    Each format's DB lives in the scratch folder under its name."""

    def __init__(self, args, log_dir):
        super().__init__(args, None, log_dir)

    def flags(self, fmt, base=False):
        """A run's flags; base: those of the run whose OPTIONS file ours'
        starts from."""
        a = self.args
        flags = [f"--db={self.db_dir(fmt)}", f"--num={a.num}",
                 f"--key_size={a.key_size}", f"--value_size={a.value_size}",
                 *COMMON_FLAGS, *a.db_bench_arg]
        if fmt.ours_table and base:
            return flags + [*CUCKOO_FLAGS, *fmt.flags]
        if fmt.ours_table:
            return flags + [*fmt.flags,
                            f"--options_file={self.options_files[fmt.name]}"]
        return flags + list(fmt.flags)

    def run(self, fmt, benchmarks, extra, tag):
        cmd = [self.args.db_bench, "--benchmarks=" + ",".join(benchmarks),
               *self.flags(fmt), *extra]
        lines, came = [], {}
        with subprocess.Popen(cmd, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) as proc:
            # db_bench flushes stdout after each result line: its arrival
            # is when that benchmark ended.
            for line in proc.stdout:
                lines.append(line)
                m = dbc.RESULT_LINE.match(line)
                if m:
                    came[m["name"]] = time.time()
        log = self.save(cmd, "".join(lines), tag)
        self.check_exit(fmt, proc.returncode, lines, log)
        self.check_log(fmt, log)
        results = {m["name"]: (int(m["ops"]), float(m["seconds"]))
                   for m in dbc.RESULT_LINE.finditer("".join(lines))}
        missing = [b for b in benchmarks
                   if b not in results and b != "waitforcompaction"]
        if missing:
            raise dbc.HarnessError(f"no result for {missing} in {log}")
        return Run(results, came, "".join(lines), log)

    def ingest(self, fmt, tag):
        """ingest_bench into the format's DB: {"write": s, "ingest": s}."""
        a = self.args
        cmd = [a.ingest_bench, f"--db={self.db_dir(fmt)}", f"--num={a.num}",
               f"--key_size={a.key_size}", f"--value_size={a.value_size}",
               f"--files={a.ingest_files}",
               "--options_string=" + fmt.ingest_table.replace(
                   "KEY_SIZE", str(a.key_size)),
               f"--db_options=allow_mmap_reads={str(fmt.mmap).lower()}"]
        # Not preloaded: it links the plugin and registers it itself.
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        lines = proc.stdout.splitlines(keepends=True)
        log = self.save(cmd, proc.stdout, tag)
        self.check_exit(fmt, proc.returncode, lines, log)
        self.check_log(fmt, log)
        times = {m[1]: float(m[2]) for m in re.finditer(
            r"^(write|ingest): ([\d.]+) s", proc.stdout, re.M)}
        if len(times) != 2:
            raise dbc.HarnessError(f"no write and ingest times in {log}")
        return times

    def save(self, cmd, output, tag):
        self.runs += 1
        log = os.path.join(self.log_dir, f"{self.runs:04d}-{tag}.txt")
        with open(log, "w") as f:
            f.write(" ".join(cmd) + "\n\n" + output)
        return log

    def check_exit(self, fmt, returncode, lines, log):
        if returncode == 0:
            return
        error = first_error(lines)
        if fmt.may_fail:
            raise CannotRun(f"{error} (exit {returncode}, {log})")
        raise dbc.HarnessError(f"{fmt.label} failed ({returncode}), see "
                               f"{log}:\n{''.join(lines[-30:])}")

    def check_log(self, fmt, run_log):
        super().check_log(fmt, run_log)
        path = os.path.join(self.db_dir(fmt), "LOG")
        with open(path, errors="replace") as f:
            m = re.search(r"Options\.memtable_factory: (\S+)", f.read())
        if not m or m.group(1) != fmt.memtable:
            raise dbc.HarnessError(
                f"{fmt.label}: db_bench ran memtable "
                f"'{m.group(1) if m else 'none'}', not '{fmt.memtable}' "
                f"(see {path} and {run_log})")

    def make_options_file(self, fmt):
        """Ours' OPTIONS file: CuckooTable's options from a db_bench run
        with every flag of ours' runs, then our table factory and mmap
        setting."""
        self.run_plain([self.args.db_bench, "--benchmarks=",
                        *self.flags(fmt, base=True)], "base-" + fmt.name)
        db = self.db_dir(fmt)
        latest = max((n for n in os.listdir(db) if n.startswith("OPTIONS-")),
                     key=lambda n: int(n.split("-")[1]))
        base = shutil.copy(os.path.join(db, latest), os.path.join(
            self.log_dir, f"{fmt.name}.base.options"))
        out = os.path.join(self.log_dir, f"{fmt.name}.options")
        mmap = str(fmt.mmap).lower()
        self.run_plain([self.args.make_options_file, f"--base={base}",
                        f"--cf_options={fmt.ours_table}",
                        f"--db_options=allow_mmap_reads={mmap}",
                        f"--expect_table_factory={fmt.factory}",
                        f"--out={out}"], "options-" + fmt.name)
        self.options_files[fmt.name] = out
        self.drop(fmt)

    def drop(self, fmt):
        db = self.db_dir(fmt)
        for path in (db, db + "-sst"):  # ingest_bench stages files beside it
            shutil.rmtree(path, ignore_errors=True)


ERROR_WORDS = re.compile(
    r"error|fail|corrupt|not ?supported|invalid|assert|abort", re.I)


def first_error(lines):
    """The line that says what went wrong, else the last one."""
    said = [l.strip() for l in lines if l.strip()]
    hits = [l for l in said if ERROR_WORDS.search(l)]
    return ((hits or said or ["no output"])[0])[:240]


def sst_mb(fmt, db_dir):
    """The .sst files' MB; each must carry the format's magic number."""
    files = dbc.sst_files(db_dir)
    for path in files:
        with open(path, "rb") as f:
            f.seek(-8, os.SEEK_END)
            magic = int.from_bytes(f.read(8), "little")
        if magic not in fmt.magic:
            raise dbc.HarnessError(f"{path}: magic number {magic:#x} is not "
                                   f"{fmt.label}'s")
    return sum(os.path.getsize(p) for p in files) / 1e6


TICKER = re.compile(r"^(rocksdb\.[\w.]+) COUNT : (\d+)$", re.M)
HISTOGRAM = re.compile(r"^(rocksdb\.[\w.]+) P50 : .* SUM : (\d+)$", re.M)


def statistics_of(stdout):
    """db_bench's STATISTICS: tickers' counts and histograms' sums."""
    text = stdout.split("STATISTICS:", 1)[-1]
    return {m[1]: int(m[2]) for r in (TICKER, HISTOGRAM)
            for m in r.finditer(text)}


def background_finished(db_dir):
    """When the last flush or compaction finished (time.time() seconds),
    from the LOG's events before the DB's close, whose own flush of the last
    memtable comes after waitforcompaction."""
    with open(os.path.join(db_dir, "LOG"), errors="replace") as f:
        text = f.read()
    shutdown = text.rfind("Shutdown: canceling all background work")
    if shutdown >= 0:
        text = text[:shutdown]
    last = 0
    for m in re.finditer(r"EVENT_LOG_v1 (\{.*\})$", text, re.M):
        event = json.loads(m[1])
        if event.get("event") in ("flush_finished", "compaction_finished"):
            last = max(last, event["time_micros"])
    return last / 1e6


def check_waited(run):
    # 9.x and later print the wait's status; 7.8.3 prints none.
    ends = re.findall(r"^waitforcompaction\(.*\): finished(.*)$", run.stdout,
                      re.M)
    if not ends or any(e not in ("", " with status (OK)") for e in ends):
        raise dbc.HarnessError(f"waitforcompaction did not end OK: {run.log}")


# ---- the workloads: each returns {metric: value} ----------------------------

def fill_random(runner, fmt, rep, tag):
    a = runner.args
    run = runner.run(fmt, ["fillrandom", "waitforcompaction"],
                     ["--statistics=1", f"--seed={a.seed + rep}",
                      "--use_existing_db=0"], tag)
    check_waited(run)
    ops, fill_s = run.results["fillrandom"]
    start = run.came["fillrandom"] - fill_s
    done_s = max(fill_s, background_finished(runner.db_dir(fmt)) - start)
    stats = statistics_of(run.stdout)
    flushed = stats.get("rocksdb.flush.write.bytes", 0)
    compacted = stats.get("rocksdb.compact.write.bytes", 0)
    values = {"ops": ops, "done_s": done_s,
              "stall_s": stats.get("rocksdb.stall.micros", 0) / 1e6,
              "write_amp": (flushed + compacted) /
              (a.num * (a.key_size + a.value_size)),
              "size_mb": sst_mb(fmt, runner.db_dir(fmt))}
    # Bytes per microsecond are MB/s; a run too small to compact has none.
    for metric, written, micros in (
            ("flush_mbps", flushed, "rocksdb.db.flush.micros"),
            ("compaction_mbps", compacted,
             "rocksdb.compaction.times.micros")):
        if stats.get(micros):
            values[metric] = written / stats[micros]
    return values


def fill_seq_compact(runner, fmt, rep, tag):
    run = runner.run(fmt, ["fillseq", "compact"],
                     [f"--seed={runner.args.seed + rep}",
                      "--use_existing_db=0"], tag)
    ops, fill_s = run.results["fillseq"]
    return {"ops": ops, "total_s": fill_s + run.results["compact"][1],
            "size_mb": sst_mb(fmt, runner.db_dir(fmt))}


def after_load(workload):
    """A workload measured in a second db_bench, after a load that has
    finished its compactions."""
    def measure(runner, fmt, rep, tag):
        a = runner.args
        check_waited(runner.run(
            fmt, ["fillrandom", "waitforcompaction"],
            [f"--seed={a.seed + rep}", "--use_existing_db=0"], tag + "-load"))
        # Another seed: other keys than the load's order.
        ops = ("--writes" if workload.benchmark == "overwrite"
               else "--reads") + f"={a.ops}"
        run = runner.run(fmt, [workload.benchmark],
                         [f"--seed={a.seed + rep + 100000}",
                          "--use_existing_db=1", ops, *workload.flags], tag)
        sst_mb(fmt, runner.db_dir(fmt))  # checks the files' format
        return {"ops": run.results[workload.benchmark][0]}
    return measure


def ingest(runner, fmt, rep, tag):
    times = runner.ingest(fmt, tag)
    num = runner.args.num
    return {"write_kps": num / times["write"],
            "ingest_kps": num / times["ingest"],
            "total_kps": num / (times["write"] + times["ingest"]),
            "size_mb": sst_mb(fmt, runner.db_dir(fmt))}


MEASURE = {"fill_random": fill_random, "fill_seq_compact": fill_seq_compact,
           "ingest": ingest}
MEASURE.update({w.name: after_load(w) for w in WORKLOADS if w.benchmark})


def measure(args, formats, workloads, runner, samples, failures):
    plan = [(w, f) for w in workloads for f in formats if can_run(w, f)]
    ours = [f for f in formats if f.ours_table]
    progress = dbc.Progress(len(ours) + args.repeat * len(plan))
    for fmt in ours:
        runner.make_options_file(fmt)
        progress.step(f"OPTIONS file for {fmt.label}: "
                      f"{runner.options_files[fmt.name]}")
    for rep in range(args.repeat):
        for w, fmt in plan:
            step = f"rep {rep + 1}/{args.repeat} {w.name:<24} {fmt.label:<29}"
            if (w.name, fmt.name) in failures:
                progress.step(step + "cannot run (as before)")
                continue
            try:
                values = MEASURE[w.name](runner, fmt, rep,
                                         f"r{rep + 1}-{w.name}-{fmt.name}")
            except CannotRun as e:
                failures[(w.name, fmt.name)] = (rep + 1, str(e))
                progress.step(step + f"cannot run: {e}")
                continue
            finally:
                runner.drop(fmt)
            for metric, v in values.items():
                samples.add(fmt, metric, 1, v, source=w.name)
            first = w.metrics[0]
            progress.step(step + f"{first.title} "
                          f"{dbc.num(values[first.id] / first.scale)}")


# ---- the report -------------------------------------------------------------

def ours_ratio(metric, ours, anchor):
    """The ratio that is > 1 when ours is better, as the table prints it
    for rates and times; sizes stay ours/anchor."""
    return anchor / ours if metric.kind == "time" else ours / anchor


def workload_table(w, formats, samples, failures):
    mine = [f for f in formats if can_run(w, f)]
    ours = [f for f in mine if f.ours_table]
    anchored = ours if ANCHOR in [f.name for f in mine] else []
    failed = [f for f in mine if (w.name, f.name) in failures]
    rows = [["metric"] + [f.label for f in mine] +
            [f"{o.name}/{ANCHOR}" for o in anchored]]
    for m in w.metrics:
        row = [m.title]
        for f in mine:
            row.append(f"cannot run [{failed.index(f) + 1}]" if f in failed
                       else dbc.cell(samples.get(f.name, m.id, 1, w.name),
                                     m.scale))
        for o in anchored:
            mo, ma = (median_or_none(samples, name, m.id, w.name)
                      for name in (o.name, ANCHOR))
            row.append(f"{ours_ratio(m, mo, ma):.2f}x" if mo and ma else "-")
        rows.append(row)
    notes = [f"[{i + 1}] {f.label}: {failures[(w.name, f.name)][1]}\n"
             for i, f in enumerate(failed)]
    return (f"{w.name}: {w.title}\n" + dbc.render(rows) + "\n"
            + "".join(notes))


def median_or_none(samples, fmt, metric, workload):
    values = samples.get(fmt, metric, 1, workload)
    return statistics.median(values) if values else None


def targets_table(formats, workloads, samples):
    """Each target of the workloads run, for each of ours beside the anchor:
    the ratio of the medians (> 1: ours better) and the verdict, with how
    many single repetitions met it."""
    names = [f.name for f in formats]
    rows = [["target", "ratio", "verdict"]]
    for o in (f for f in formats if f.ours_table):
        for w, metric_id, bound, against in TARGETS:
            if w not in workloads or not can_run(w, o) or against not in names:
                continue
            m = next(m for m in w.metrics if m.id == metric_id)
            what = (f"{against}/{o.name}" if m.kind == "time"
                    else f"{o.name}/{against}")
            name = f"{w.name} {m.title}, {what}"
            ours = samples.get(o.name, metric_id, 1, w.name)
            anchor = samples.get(against, metric_id, 1, w.name)
            if not ours or not anchor:
                # e.g. MB/s of compactions that a small --num never ran
                rows.append([name, "-", f"target >={bound:g}x not measured"])
                continue
            ratio = ours_ratio(m, statistics.median(ours),
                               statistics.median(anchor))
            runs = (paired_ratios(anchor, ours) if m.kind == "time"
                    else paired_ratios(ours, anchor))
            rows.append([name, f"{ratio:.2f}x",
                         RatioTarget(True, bound).verdict(ratio, runs)])
    return dbc.render(rows) + "\n" if len(rows) > 1 else ""


def write_csv(path, args, samples, failures):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["workload", "format", "metric", "rep", "value", "num",
                      "key_size", "value_size", "ops", "error"])
        common = [args.num, args.key_size, args.value_size, args.ops]
        for (workload, fmt, metric, _), values in samples.values.items():
            for rep, v in enumerate(values, 1):
                out.writerow([workload, fmt, metric, rep, f"{v:.6g}",
                              *common, ""])
        for (workload, fmt), (rep, error) in failures.items():
            out.writerow([workload, fmt, "cannot_run", rep, "", *common,
                          error])


# ---- main -------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--num", type=int, default=4000000,
                   help="keys written by every load (default 4000000)")
    p.add_argument("--ops", type=int,
                   help="operations of the workloads after a load (default "
                        "--num): overwrite's writes, the others' reads")
    p.add_argument("--key_size", type=int, default=16)
    p.add_argument("--value_size", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3,
                   help="rounds of every workload and format (default 3)")
    p.add_argument("--formats", default=",".join(FORMAT_BY_NAME),
                   help="from: " + ",".join(FORMAT_BY_NAME) + f"; {ANCHOR} "
                        "is the anchor of the ratios")
    p.add_argument("--workloads", default=",".join(WORKLOAD_BY_NAME),
                   help="from: " + ",".join(WORKLOAD_BY_NAME))
    p.add_argument("--ingest_files", type=int, default=8,
                   help="files the ingest workload writes and ingests")
    p.add_argument("--seed", type=int, default=1000,
                   help="db_bench --seed of the first rep's loads (rep r: "
                        "seed + r; after a load seed + r + 100000)")
    p.add_argument("--build",
                   default=os.path.join(REPO, "build-intree-11.8.1"),
                   help="build folder giving the defaults of the next four "
                        "(an in-tree one: its RocksDB's own db_bench)")
    p.add_argument("--db_bench", help="the db_bench to drive")
    p.add_argument("--lib", help="librocksdb_cuckoo.so to preload (system-"
                   "mode build only)")
    p.add_argument("--make_options_file", help="the make_options_file tool")
    p.add_argument("--ingest_bench", help="the ingest_bench tool")
    p.add_argument("--db_bench_arg", action="append", default=[],
                   help="extra flag for every db_bench run (repeatable)")
    p.add_argument("--db_dir", help="where a scratch folder for the DBs is "
                   "made, each DB deleted after its run (default /dev/shm "
                   "if it has room, else /tmp)")
    p.add_argument("--out", help="prefix of the .txt, .csv and -logs/ "
                   "written (default bench-out/write_compare)")
    run_folder.add_results_flag(p, "write_compare_<num>")
    args = p.parse_args()

    for name in args.formats.split(",") + args.workloads.split(","):
        if name not in FORMAT_BY_NAME and name not in WORKLOAD_BY_NAME:
            p.error(f"unknown format or workload '{name}'")
    if args.key_size < 8 or args.num < 1 or args.repeat < 1:
        p.error("need --key_size >= 8, --num >= 1, --repeat >= 1")
    args.ops = args.ops or args.num
    if args.results:
        args.out = run_folder.out_in_folder(
            args.build, args.out,
            "write_compare_" + run_folder.short_count(args.num))
    args.out = args.out or os.path.join(REPO, "bench-out", "write_compare")
    dbc.resolve_db_bench(p, args)
    tools = os.path.join(args.build, "db_bench_ext")
    args.make_options_file = args.make_options_file or os.path.join(
        tools, "make_options_file")
    args.ingest_bench = args.ingest_bench or os.path.join(tools,
                                                          "ingest_bench")
    formats = args.formats.split(",")
    needed = [args.db_bench] + ([args.lib] if args.lib else []) + (
        [args.make_options_file] if any(
            FORMAT_BY_NAME[f].ours_table for f in formats) else []) + (
        [args.ingest_bench] if "ingest" in args.workloads.split(",") else [])
    for path in needed:
        if not os.path.isfile(path):
            p.error(f"{path} is missing (build it, or point the flag at it)")
    args.db_dir = args.db_dir or default_db_dir(args)
    return args


def default_db_dir(args):
    """/dev/shm where it holds a few times the data (the largest DB, its
    compactions' outputs) and memory backs that, else /tmp."""
    need = 4 * args.num * (args.key_size + args.value_size)
    with open("/proc/meminfo") as f:
        available = int(re.search(r"^MemAvailable:\s+(\d+) kB", f.read(),
                                  re.M)[1]) << 10
    shm = "/dev/shm"
    if os.path.isdir(shm) and shutil.disk_usage(shm).free > need and \
            available > 2 * need:
        return shm
    return tempfile.gettempdir()


def main():
    args = parse_args()
    formats = [FORMAT_BY_NAME[n] for n in args.formats.split(",")]
    workloads = [WORKLOAD_BY_NAME[n] for n in args.workloads.split(",")]
    log_dir = args.out + "-logs"
    if args.results:
        run_folder.record_argv(os.path.dirname(args.out),
                               [os.path.basename(args.out) + ext
                                for ext in (".txt", ".csv")])
    shutil.rmtree(log_dir, ignore_errors=True)
    os.makedirs(log_dir)
    # A folder of our own: nothing else under --db_dir is ever deleted.
    os.makedirs(args.db_dir, exist_ok=True)
    args.db_dir = tempfile.mkdtemp(prefix="write_compare-", dir=args.db_dir)
    driven = (f"stock db_bench + {args.lib}" if args.lib
              else "in-tree db_bench (plugin compiled in, release build)")
    start = time.monotonic()
    samples, failures = dbc.Samples(), {}
    try:
        host = (f"{platform.node()}, {os.cpu_count()} cores, db_bench "
                f"{dbc.db_bench_version(args)}")
        print(f"write_compare: {host}; {args.num} keys, {args.ops} ops after "
              f"a load, {args.repeat} reps, formats "
              f"{[f.name for f in formats]}"
              f"\n  {args.db_bench}\n  DBs in {args.db_dir}, logs {log_dir}",
              flush=True)
        measure(args, formats, workloads, Runner(args, log_dir), samples,
                failures)
    except dbc.HarnessError as e:
        sys.exit(f"write_compare: FAILED: {e}")
    finally:
        shutil.rmtree(args.db_dir, ignore_errors=True)

    report = [f"write_compare {datetime.datetime.now():%Y-%m-%d %H:%M}, "
              f"{host}, {driven}\n"
              f"{args.num} keys ({args.key_size}+{args.value_size} bytes), "
              f"{args.ops} ops after a load, 1 thread; median [min-max] of "
              f"{args.repeat} reps; MB = 10^6 bytes\n"
              f"ratios of medians against {ANCHOR}: rates ours/{ANCHOR}, "
              f"times {ANCHOR}/ours (both > 1: ours better), sizes and write "
              f"amplification ours/{ANCHOR} (< 1: ours smaller)\n"]
    report += [workload_table(w, formats, samples, failures)
               for w in workloads]
    report.append(targets_table(formats, workloads, samples))
    text = "\n".join(r for r in report if r)
    print("\n" + text)
    with open(args.out + ".txt", "w") as f:
        f.write(text)
    write_csv(args.out + ".csv", args, samples, failures)
    print(f"csv {args.out}.csv, report {args.out}.txt; "
          f"{dbc.fmt_time(time.monotonic() - start)}")


if __name__ == "__main__":
    main()

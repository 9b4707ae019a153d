#!/usr/bin/python3
"""The striped_hash memtable against RocksDB's skip list, through the stock
db_bench (Debian's rocksdb-tools 7.8.3) with build/librocksdb_cuckoo.so
preloaded, or with --build at an in-tree build folder (e.g.
build-intree-9.10.0) through that RocksDB release's own db_bench:
`--memtablerep=striped_hash` vs `--memtablerep=skip_list`, every other flag
equal.

Workloads, all on a memtable that is never flushed while measured:
  get      fillseq of --num keys into a large write buffer, then readrandom
           (--reads lookups, all hits, one thread): point Get from the
           memtable only. Its memstats give memory per entry at --num keys.
  insert   fillrandom with WAL off and allow_concurrent_memtable_write=true,
           --insert_total operations split over each of --insert_threads,
           keys drawn from --insert_total keys at every thread count.
  scan     fillrandom of --scan_num entries (a ~64 MiB memtable), then
           readseq: a full iteration of the memtable through a DB iterator.
  flush    fillrandom of --scan_num entries, memstats (memory per entry of a
           ~64 MiB memtable), then flush: the flush job's time from the DB's
           LOG (flush_started to flush_finished), compression off.
  multiget fillseq of --num keys into a large write buffer, then
           multireadrandom in batches of 32 (--reads lookups, all hits, one
           thread): DB::MultiGet from the memtable only, through RocksDB
           11.1+'s batched MemTableRep::MultiGet
           (memtable_batch_lookup_optimization) where the db_bench has it,
           else one memtable lookup per key.
  merge    mergerandom of --merge_num 8-byte uint64add operands over
           --merge_keys keys with max_successive_merges=5: on every Merge
           RocksDB counts the key's newest operands in the memtable.
  seekwrite
           seekrandomwhilewriting for --seekwrite_seconds: one thread seeks
           (a new iterator, then 10 Next) while another writes into 64 MiB
           memtables that flush, with compactions on: iterators positioned
           after writes. Twice: the writer held to --seekwrite_rate (the
           same work for both memtables), then flat out, where the faster
           writer also leaves more files to seek through and less CPU to
           the reader on a small machine, so its write rate is a row too.
           The one workload here where memtables are flushed. Then flat out
           once more into one 4 GiB memtable that never flushes: the seeks
           reach only the memtable, the same for both (ours holds the more
           entries, written 3-4x as fast).
scan and flush run in separate processes so that the flush cannot reuse the
sorted view the scan built.

The representations take turns within every repetition (they share the
machine's noise); the report gives the median of --repeats runs, min and
max, and ours/skip_list from the medians, and for the rows that have a
target (GET_TARGET and the rest, below) whether that ratio meets it and in
how many repetitions a single repetition's ratio did; a row with more
threads than allowed CPUs is marked oversubscribed. Every run is checked:
db_bench's LOG must name the memtable factory asked for, and reads must find
every key.
The striped counters (ROCKSDB_CUCKOO_MEMTABLE_STATS) of the last run of each
workload are printed.

Default run: about 4-6 minutes on 2 busy cores. The lead's scaling run on a
bigger machine, for example:
  db_bench_ext/memtable_compare.py --insert_threads=1,2,4,8,16 --repeats=5
and with another counter striping than the default (auto: per last-level
cache where there are several, else per CPU):
  db_bench_ext/memtable_compare.py --workloads=insert \
      --insert_threads=1,2,4,8,16 --striped_hash_options=stripe_mode=llc
Inserts go through db_bench's default write path (pipelined writes); RocksDB's
fastest one for concurrent inserts, where writers skip the write group for
the memtable, is
  --extra="--enable_pipelined_write=false --unordered_write=true"
--out OUT also writes the report and the raw runs to OUT.txt and OUT.json;
with --results they go into this run's folder,
db_bench_ext/results/<date>-<machine>-<build>/ (run_folder.py), and the
command line into its COMMAND.md.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

from db_bench_compare import intree_rocksdb
import run_folder
from ratio_target import RatioTarget, paired_ratios

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPS = ("skip_list", "striped_hash")
# The rows' targets (striped_hash / skip_list): memtable-only Get at 5x or
# more, memory per entry at most 1.15x, and 16 threads inserting
# concurrently at 2.5x or more.
GET_TARGET = RatioTarget(True, 5)
MEMORY_TARGET = RatioTarget(False, 1.15)
INSERT_TARGET = RatioTarget(True, 2.5)
INSERT_TARGET_THREADS = 16
OPS_RE = re.compile(r"^(\w+)\s*:\s*([\d.]+) micros/op (\d+) ops/sec")
STAT_RE = re.compile(r"^(rocksdb\.[\w-]+): (\d+)$", re.M)


def parse_args():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(REPO, "build"),
                   help="build folder: an in-tree one (e.g. build-intree-9.10.0) "
                   "drives that RocksDB release's own db_bench, preloading nothing")
    p.add_argument("--db_bench", help="default: the in-tree build's, else the stock one")
    p.add_argument("--lib", help="library to preload (default: the build's "
                   "librocksdb_cuckoo.so; none for an in-tree build)")
    p.add_argument("--db_dir", default="/dev/shm/memtable_compare"
                   if os.path.isdir("/dev/shm") else "/tmp/memtable_compare")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--workloads",
                   default="get,insert,scan,flush,merge,seekwrite")
    p.add_argument("--num", type=int, default=1000000, help="keys for get")
    p.add_argument("--reads", type=int, default=500000, help="lookups for get")
    p.add_argument("--insert_threads", default="2",
                   help="comma-separated thread counts for insert")
    p.add_argument("--insert_total", type=int, default=1000000,
                   help="insert operations per run, split over the threads")
    p.add_argument("--scan_num", type=int, default=460000,
                   help="entries for scan/flush (~64 MiB with 16+100 bytes)")
    p.add_argument("--merge_num", type=int, default=200000,
                   help="merge operands for merge")
    p.add_argument("--merge_keys", type=int, default=20000,
                   help="keys the merge operands go to")
    p.add_argument("--seekwrite_seconds", type=int, default=10,
                   help="duration of each seekwrite run")
    p.add_argument("--seekwrite_rate", type=int, default=20000000,
                   help="bytes/s of the held writer in seekwrite (keys and values)")
    p.add_argument("--key_size", type=int, default=16)
    p.add_argument("--value_size", type=int, default=100)
    p.add_argument("--striped_hash_options", default="",
                   help="options for our factory, e.g. stripe_mode=core;"
                   "bucket_count=65536 (passed as --memtablerep=id=striped_hash;...)")
    p.add_argument("--extra", default="", help="more db_bench flags for every run")
    p.add_argument("--out", default="", help="also write the report and raw runs "
                   "(JSON) to OUT.txt / OUT.json")
    run_folder.add_results_flag(p, "memtable_compare")
    args = p.parse_args()
    if args.results:
        args.out = run_folder.out_in_folder(args.build, args.out,
                                            "memtable_compare")
    intree = intree_rocksdb(args.build)
    if intree:
        if args.lib:
            p.error("--lib: the in-tree db_bench has the plugin compiled in")
        args.db_bench = args.db_bench or os.path.join(intree, "db_bench")
    else:
        args.db_bench = args.db_bench or shutil.which("db_bench") or \
            "/usr/bin/db_bench"
        args.lib = args.lib or os.path.join(args.build, "librocksdb_cuckoo.so")
        if not os.path.exists(args.lib):
            p.error(f"{args.lib} not found: build the project first (or pass --lib)")
    return args


def run_db_bench(args, rep, benchmarks, flags):
    """One db_bench process; returns (stdout, LOG text, stderr)."""
    db = os.path.join(args.db_dir, rep)
    shutil.rmtree(db, ignore_errors=True)
    memtablerep = rep
    if rep == "striped_hash" and args.striped_hash_options:
        memtablerep = f"id={rep};{args.striped_hash_options}"
    cmd = [args.db_bench, f"--db={db}", f"--memtablerep={memtablerep}",
           f"--benchmarks={benchmarks}", f"--key_size={args.key_size}",
           f"--value_size={args.value_size}", "--disable_wal=1",
           "--compression_type=none", "--disable_auto_compactions=1",
           "--max_write_buffer_number=2", "--seed=42", "--histogram=0",
           "--statistics=0"] + flags + args.extra.split()
    env = dict(os.environ, ROCKSDB_CUCKOO_MEMTABLE_STATS="1")
    if args.lib:
        env["LD_PRELOAD"] = args.lib
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"db_bench failed ({proc.returncode}): {' '.join(cmd)}\n"
                 f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    with open(os.path.join(db, "LOG"), errors="replace") as f:
        log = f.read()
    want = f"Options.memtable_factory: {rep}"
    if rep == "skip_list":
        want = "Options.memtable_factory: SkipListFactory"
    if want not in log:
        sys.exit(f"{rep}: the DB's LOG does not say '{want}': wrong memtable ran")
    shutil.rmtree(db, ignore_errors=True)
    return proc.stdout, log, proc.stderr


def ops_per_sec(stdout, benchmark, nth=0):
    """ops/s and the line of the nth run of `benchmark` in db_bench's output."""
    found = [(float(m.group(3)), line) for line in stdout.splitlines()
             if (m := OPS_RE.match(line)) and m.group(1) == benchmark]
    if len(found) <= nth:
        sys.exit(f"no '{benchmark}' result in db_bench output:\n{stdout[-2000:]}")
    return found[nth]


def bytes_per_entry(stdout):
    stats = dict(STAT_RE.findall(stdout))
    size = int(stats["rocksdb.cur-size-active-mem-table"])
    entries = int(stats["rocksdb.num-entries-active-mem-table"])
    return size / entries


def flush_seconds(log):
    events = {}
    for m in re.finditer(r"EVENT_LOG_v1 (\{.*\})", log):
        event = json.loads(m.group(1))
        if event.get("event") in ("flush_started", "flush_finished"):
            events.setdefault(event["event"], event["time_micros"])
    if len(events) != 2:
        sys.exit("flush events missing from the DB's LOG")
    return (events["flush_finished"] - events["flush_started"]) / 1e6


def striped_stats(stderr):
    lines = [l for l in stderr.splitlines() if l.startswith("striped_hash stats:")]
    return lines[-1] if lines else "(none printed)"


def large_buffer(num_entries, args):
    # Room for every entry and the index (< 200 bytes each) twice over, so
    # nothing is flushed while measured.
    per_entry = args.key_size + args.value_size + 200
    return [f"--write_buffer_size={max(64 << 20, 2 * num_entries * per_entry)}",
]


EMPTY_GET_ROW = "readrandom, empty memtable (DB::Get's own cost)"


def batch_lookup_flags(args):
    """The flag that turns on MemTableRep::MultiGet, if this db_bench has it."""
    flag = "memtable_batch_lookup_optimization"
    help_text = subprocess.run([args.db_bench, "--help"], capture_output=True,
                               text=True).stdout
    return [f"--{flag}=true"] if f"-{flag} " in help_text else []


def get_row(args):
    return f"readrandom, memtable only ({args.num} keys)"


def workload_runs(args):
    """(name, unit, higher_is_better, function(rep) -> (value, stats line),
    target or None, note)."""
    cpus = len(os.sched_getaffinity(0))
    runs = []
    names = args.workloads.split(",")
    if "get" in names:
        def get(rep):
            # The first readrandom, on the empty DB, is DB::Get's cost
            # around the memtable (and db_bench's own): no memtable can make
            # a Get cheaper than that.
            out, _, err = run_db_bench(
                args, rep, "readrandom,fillseq,readrandom,memstats",
                [f"--num={args.num}", f"--reads={args.reads}", "--threads=1"] +
                large_buffer(args.num, args))
            get.empty[rep] = ops_per_sec(out, "readrandom", 0)[0]
            value, line = ops_per_sec(out, "readrandom", 1)
            if f"({args.reads} of {args.reads} found)" not in line:
                sys.exit(f"{rep}: readrandom did not find every key: {line}")
            get.memory[rep] = bytes_per_entry(out)
            return value, striped_stats(err)
        get.memory = {}
        get.empty = {}
        runs.append((get_row(args), "ops/s", True, get,
                     GET_TARGET, ""))
        runs.append((EMPTY_GET_ROW, "ops/s",
                     True, lambda rep: (get.empty[rep], None), None, ""))
        runs.append((f"memory per entry ({args.num} keys)", "bytes", False,
                     lambda rep: (get.memory[rep], None), MEMORY_TARGET, ""))
    if "multiget" in names:
        batched = batch_lookup_flags(args)

        def multiget(rep):
            out, _, err = run_db_bench(
                args, rep, "fillseq,multireadrandom",
                [f"--num={args.num}", f"--reads={args.reads}", "--threads=1",
                 "--multiread_batched=1", "--batch_size=32", *batched] +
                large_buffer(args.num, args))
            value, line = ops_per_sec(out, "multireadrandom")
            found = re.search(r"\((\d+) of (\d+) found\)", line)
            if not found or found.group(1) != found.group(2):
                sys.exit(f"{rep}: multireadrandom did not find every key: {line}")
            return value, striped_stats(err)
        runs.append((f"multireadrandom batch 32, memtable only ({args.num} keys"
                     f"{', batched memtable lookups' if batched else ''})",
                     "ops/s", True, multiget, None, ""))
    if "insert" in names:
        for threads in [int(t) for t in args.insert_threads.split(",")]:
            def insert(rep, threads=threads):
                out, _, err = run_db_bench(
                    args, rep, "fillrandom",
                    # One key space for every thread count: db_bench's
                    # threads each write --writes keys drawn from --num.
                    [f"--num={args.insert_total}",
                     f"--writes={args.insert_total // threads}",
                     f"--threads={threads}",
                     "--allow_concurrent_memtable_write=true",
                     "--enable_write_thread_adaptive_yield=true"] +
                    large_buffer(args.insert_total, args))
                return ops_per_sec(out, "fillrandom")[0], striped_stats(err)
            runs.append((f"fillrandom, {threads} thread(s), concurrent memtable "
                         "writes, WAL off", "ops/s", True, insert,
                         INSERT_TARGET if threads == INSERT_TARGET_THREADS else None,
                         "(oversubscribed)" if threads > cpus else ""))
    if "scan" in names:
        def scan(rep):
            out, _, err = run_db_bench(
                args, rep, "fillrandom,readseq",
                [f"--num={args.scan_num}", "--threads=1"] +
                large_buffer(args.scan_num, args))
            return ops_per_sec(out, "readseq")[0], striped_stats(err)
        runs.append((f"readseq, full iteration of the memtable ({args.scan_num} "
                     "entries)", "ops/s", True, scan, None, ""))
    if "flush" in names:
        def flush(rep):
            out, log, err = run_db_bench(
                args, rep, "fillrandom,memstats,flush",
                [f"--num={args.scan_num}", "--threads=1"] +
                large_buffer(args.scan_num, args))
            flush.memory[rep] = bytes_per_entry(out)
            return flush_seconds(log), striped_stats(err)
        flush.memory = {}
        runs.append((f"flush of the memtable ({args.scan_num} entries)", "s", False,
                     flush, None, ""))
        runs.append((f"memory per entry ({args.scan_num} entries, ~64 MiB)",
                     "bytes", False, lambda rep: (flush.memory[rep], None),
                     MEMORY_TARGET, ""))
    if "merge" in names:
        def merge(rep):
            out, _, err = run_db_bench(
                args, rep, "mergerandom",
                [f"--num={args.merge_num}", f"--merge_keys={args.merge_keys}",
                 "--merge_operator=uint64add", "--max_successive_merges=5",
                 "--value_size=8", "--threads=1"] + large_buffer(args.merge_num, args))
            return ops_per_sec(out, "mergerandom")[0], striped_stats(err)
        runs.append((f"mergerandom, max_successive_merges=5 ({args.merge_num} "
                     f"8-byte operands, {args.merge_keys} keys)", "ops/s", True,
                     merge,
                     None, ""))
    if "seekwrite" in names:
        flushing = 64 << 20      # memtables that flush during the run
        never_flushed = 4 << 30  # one memtable that holds the whole run

        def seekwrite(rep, rate, write_buffer_size=flushing):
            out, _, err = run_db_bench(
                args, rep, "seekrandomwhilewriting",
                [f"--num={2 * args.num}", f"--duration={args.seekwrite_seconds}",
                 "--seek_nexts=10", "--threads=1",
                 f"--write_buffer_size={write_buffer_size}",
                 "--disable_auto_compactions=0", "--statistics=1",
                 f"--benchmark_write_rate_limit={rate}"])
            seeks, line = ops_per_sec(out, "seekrandomwhilewriting")
            written = re.search(r"rocksdb\.number\.keys\.written COUNT : (\d+)", out)
            seconds = re.search(r"([\d.]+) seconds", line)
            if not written or not seconds:
                sys.exit(f"{rep}: no write count in db_bench output:\n{out[-2000:]}")
            seekwrite.writes[(rep, write_buffer_size)] = (
                int(written.group(1)) / float(seconds.group(1)))
            return seeks, striped_stats(err)
        seekwrite.writes = {}
        runs.append((f"seekrandomwhilewriting, seeks of 1 reader beside 1 writer "
                     f"at {args.seekwrite_rate / 1e6:g} MB/s (64 MiB memtables)",
                     "ops/s", True, lambda rep: seekwrite(rep, args.seekwrite_rate),
                     None, ""))
        runs.append(("seekrandomwhilewriting, seeks of 1 reader beside 1 "
                     "flat-out writer (64 MiB memtables)", "ops/s", True,
                     lambda rep: seekwrite(rep, 0), None, ""))
        runs.append(("seekrandomwhilewriting, that flat-out writer's writes",
                     "ops/s", True,
                     lambda rep: (seekwrite.writes[(rep, flushing)], None),
                     None, ""))
        runs.append(("seekrandomwhilewriting, seeks of 1 reader beside 1 "
                     "flat-out writer (one 4 GiB memtable, never flushed)",
                     "ops/s", True, lambda rep: seekwrite(rep, 0, never_flushed),
                     None, ""))
        runs.append(("seekrandomwhilewriting, that never-flushed writer's writes",
                     "ops/s", True,
                     lambda rep: (seekwrite.writes[(rep, never_flushed)], None),
                     None, ""))
    return runs


def main():
    args = parse_args()
    if args.results:
        name = os.path.basename(args.out)
        run_folder.record_argv(os.path.dirname(args.out),
                               [name + ".txt", name + ".json"])
    os.makedirs(args.db_dir, exist_ok=True)
    runs = workload_runs(args)
    samples = {name: {rep: [] for rep in REPS} for name, *_ in runs}
    stats = {}
    for r in range(args.repeats):
        for name, unit, _, fn, *_ in runs:
            # Alternate which representation goes first.
            for rep in (REPS if r % 2 == 0 else REPS[::-1]):
                value, stat = fn(rep)
                samples[name][rep].append(value)
                if rep == "striped_hash" and stat:
                    stats[name] = stat
            print(f"repeat {r + 1}/{args.repeats}: {name}: " +
                  ", ".join(f"{rep} {samples[name][rep][-1]:.6g} {unit}"
                            for rep in REPS), file=sys.stderr, flush=True)

    plugin = f"LD_PRELOAD={args.lib}" if args.lib else "the plugin compiled in"
    lines = [f"memtable_compare: {args.db_bench} with {plugin}; "
             f"median of {args.repeats} runs [min, max]; keys {args.key_size} B, "
             f"values {args.value_size} B",
             f"{'workload':<70} {'skip_list':>26} {'striped_hash':>26} {'ratio':>7}"]
    for name, unit, higher, _, target, note in runs:
        cells = []
        medians = {}
        for rep in REPS:
            xs = samples[name][rep]
            medians[rep] = statistics.median(xs)
            cells.append(f"{medians[rep]:.4g} [{min(xs):.4g}, {max(xs):.4g}]")
        ratio = medians["striped_hash"] / medians["skip_list"]
        better = "(higher better)" if higher else "(lower better)"
        verdict = target.verdict(ratio, paired_ratios(
            samples[name]["striped_hash"], samples[name]["skip_list"])) \
            if target else ""
        lines.append(" ".join(filter(None, [
            f"{name + ' ' + unit:<70} {cells[0]:>26} {cells[1]:>26} "
            f"{ratio:6.2f}x {better}", verdict, note])))
    empty = samples.get(EMPTY_GET_ROW)
    if empty:
        floor = max(statistics.median(empty[rep]) for rep in REPS)
        skip_list = statistics.median(samples[get_row(args)]["skip_list"])
        lines.append(
            "highest memtable-only Get ratio any memtable could reach here "
            f"(the empty memtable's Get rate over skip_list's): {floor / skip_list:.2f}x")
    lines.append("")
    lines.append("striped_hash counters (last run of each workload):")
    for name, stat in stats.items():
        lines.append(f"  {name}:\n    {stat}")
    report = "\n".join(lines)
    print(report)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out + ".txt", "w") as f:
            f.write(report + "\n")
        with open(args.out + ".json", "w") as f:
            json.dump({"args": vars(args), "samples": samples, "stats": stats}, f,
                      indent=1)


if __name__ == "__main__":
    main()

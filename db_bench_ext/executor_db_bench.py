#!/usr/bin/env python3
"""Stock db_bench fillrandom on RocksDB's default Env vs AsyncExecutorEnv.

Small write buffers and files make flushes and compactions run all the time,
so the background executor is busy. The default Env and AsyncExecutorEnv
(loaded with LD_PRELOAD=librocksdb_cuckoo.so --env_uri=AsyncExecutorEnv)
take turns within every run, alternating who goes first. Printed: ops/s,
write stall time (the rocksdb.stall.micros ticker) and the writes' latency
percentiles P99 and P99.9 (db_bench --histogram), median [min..max] over
the runs and the ratio of the medians, whether stall time and P99 meet
their targets (TARGETS, below), then the executor's statistics of the last
run (per pool: queue, wait and run times).

    db_bench_ext/executor_db_bench.py --num=1000000 --runs=3 --bg_jobs=4
    db_bench_ext/executor_db_bench.py --build build-intree-9.10.0

With --build at an in-tree build folder, it drives that RocksDB release's
own db_bench, which has the plugin compiled in, and preloads nothing.

--threads is db_bench's writer threads, --bg_jobs its max_background_jobs
(the pool sizes follow from it, as RocksDB sizes them at DB::Open).

--out OUT also writes the printed report to OUT.txt; with --results it goes
into this run's folder, db_bench_ext/results/<date>-<machine>-<build>/
(run_folder.py), as executor_db_bench.txt (or --out's last part), and the
command line into its COMMAND.md.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

from db_bench_compare import intree_rocksdb
import run_folder
from ratio_target import RatioTarget, paired_ratios

# The targets (ours / default): write stalls and the writes' P99 no longer
# than with the default Env.
TARGETS = (("stall time", 1, RatioTarget(False, 1.0)),
           ("write P99", 2, RatioTarget(False, 1.0)))


def find_db_bench():
    found = shutil.which("db_bench")
    if found:
        return found
    try:
        listing = subprocess.run(["dpkg", "-L", "rocksdb-tools"], check=True,
                                 capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        listing = ""
    for line in listing.splitlines():
        if line.endswith("/db_bench") and os.access(line, os.X_OK):
            return line
    sys.exit("executor_db_bench: no db_bench (install rocksdb-tools)")


def run_db_bench(args, env_name, db_dir, stats_file):
    wb = args.write_buffer_size
    cmd = [
        args.db_bench, "--benchmarks=fillrandom", f"--num={args.num}",
        f"--threads={args.threads}", f"--max_background_jobs={args.bg_jobs}",
        f"--write_buffer_size={wb}", f"--target_file_size_base={wb}",
        f"--max_bytes_for_level_base={4 * wb}",
        "--level0_file_num_compaction_trigger=4",
        f"--value_size={args.value_size}", "--key_size=16",
        f"--compression_type={args.compression}", "--statistics",
        "--histogram", f"--db={db_dir}", "--seed=42"
    ]
    env = dict(os.environ)
    if env_name == "ours":
        if args.library:
            env["LD_PRELOAD"] = args.library
        cmd.append(f"--env_uri=id=AsyncExecutorEnv;stats_file={stats_file}")
    shutil.rmtree(db_dir, ignore_errors=True)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    shutil.rmtree(db_dir, ignore_errors=True)
    if out.returncode != 0:
        sys.exit(f"db_bench failed ({env_name}):\n{out.stdout}\n{out.stderr}")
    ops = re.search(r"^fillrandom\s*:.*?([\d.]+) ops/sec", out.stdout, re.M)
    stall = re.search(r"^rocksdb\.stall\.micros COUNT : (\d+)", out.stdout,
                      re.M)
    # The first percentile line is fillrandom's write latency, in µs.
    tail = re.search(r"^Percentiles: .*?P99: ([\d.]+) P99\.9: ([\d.]+)",
                     out.stdout, re.M)
    if not ops or not stall or not tail:
        sys.exit(f"cannot parse db_bench output ({env_name}):\n{out.stdout}")
    return (float(ops.group(1)), int(stall.group(1)) / 1000.0,
            float(tail.group(1)), float(tail.group(2)), " ".join(cmd))


def summary(values, fmt):
    return (f"{fmt(statistics.median(values))} "
            f"[{fmt(min(values))}..{fmt(max(values))}]")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--num", type=int, default=1000000,
                        help="keys written per run (default: 1000000)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1,
                        help="db_bench writer threads")
    parser.add_argument("--bg_jobs", type=int, default=4,
                        help="db_bench --max_background_jobs")
    parser.add_argument("--write_buffer_size", type=int, default=1 << 20)
    parser.add_argument("--value_size", type=int, default=100)
    parser.add_argument("--compression", default="none")
    parser.add_argument("--build", default="build",
                        help="build folder holding librocksdb_cuckoo.so, or "
                        "an in-tree build folder")
    parser.add_argument("--db_bench", default=None)
    parser.add_argument("--out_dir", default="bench-out/executor_db_bench",
                        help="the DB and the executor statistics of each run")
    parser.add_argument("--out", default="",
                        help="also write the printed report to OUT.txt")
    run_folder.add_results_flag(parser, "executor_db_bench")
    args = parser.parse_args()
    if args.results:
        args.out = run_folder.out_in_folder(args.build, args.out,
                                            "executor_db_bench")
    intree = intree_rocksdb(args.build)
    if intree:
        args.db_bench = args.db_bench or os.path.join(intree, "db_bench")
        args.library = None
    else:
        args.db_bench = args.db_bench or find_db_bench()
        args.library = os.path.abspath(
            os.path.join(args.build, "librocksdb_cuckoo.so"))
        if not os.path.exists(args.library):
            sys.exit(f"executor_db_bench: {args.library} is missing; "
                     "build first")
    os.makedirs(args.out_dir, exist_ok=True)
    if args.results:
        run_folder.record_argv(os.path.dirname(args.out),
                               [os.path.basename(args.out) + ".txt"])
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        report = open(args.out + ".txt", "w")
        sys.stdout = Tee(sys.stdout, report)
    try:
        measure(args, intree)
    finally:
        if args.out:
            sys.stdout = sys.stdout.streams[0]
            report.close()


class Tee:
    """Writes to every stream it is given (the terminal and --out)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self):
        for stream in self.streams:
            stream.flush()


def measure(args, intree):
    results = {"default": ([], [], [], []), "ours": ([], [], [], [])}
    for run in range(args.runs):
        order = ["default", "ours"] if run % 2 == 0 else ["ours", "default"]
        stats_file = os.path.abspath(
            os.path.join(args.out_dir, f"executor_stats_run{run + 1}.txt"))
        if os.path.exists(stats_file):
            os.remove(stats_file)
        for name in order:
            *measured, cmd = run_db_bench(
                args, name, os.path.join(args.out_dir, "db"), stats_file)
            for values, value in zip(results[name], measured):
                values.append(value)
            ops, stall_ms, p99, p999 = measured
            print(f"run {run + 1} {name:8s} {ops:10.0f} ops/s  "
                  f"stall {stall_ms:9.1f} ms  P99 {p99:8.2f} us  "
                  f"P99.9 {p999:8.2f} us", flush=True)
            if run == 0:
                print(f"  {cmd}", flush=True)

    ops_fmt = lambda v: f"{v:.0f}"
    ms_fmt = lambda v: f"{v:.1f}"
    us_fmt = lambda v: f"{v:.2f}"
    print(f"\nfillrandom num={args.num} threads={args.threads} "
          f"max_background_jobs={args.bg_jobs} "
          f"write_buffer_size={args.write_buffer_size}; {args.db_bench}"
          f"{' (in-tree, plugin compiled in)' if intree else ''}; "
          f"median [min..max] of {args.runs} runs")
    for name, label in (("default", "Env::Default"),
                        ("ours", "AsyncExecutorEnv")):
        ops, stall, p99, p999 = results[name]
        print(f"{label:17s} ops/s {summary(ops, ops_fmt):28s} "
              f"stall ms {summary(stall, ms_fmt):24s} "
              f"P99 us {summary(p99, us_fmt):24s} "
              f"P99.9 us {summary(p999, us_fmt)}")
    theirs = [statistics.median(v) for v in results["default"]]
    ours = [statistics.median(v) for v in results["ours"]]
    ratios = [f"{o / t:.2f}x" if t > 0 else "n/a (0)"
              for o, t in zip(ours, theirs)]
    print(f"ratio (ours / default): ops/s {ratios[0]}, stall {ratios[1]}, "
          f"P99 {ratios[2]}, P99.9 {ratios[3]}")
    for label, index, target in TARGETS:
        median_ratio = paired_ratios([ours[index]], [theirs[index]])[0]
        run_ratios = paired_ratios(results["ours"][index],
                                   results["default"][index])
        print(f"{label}: {median_ratio:.3f}x, "
              f"{target.verdict(median_ratio, run_ratios)}")
    with open(stats_file) as f:
        print("\nexecutor statistics, last run:\n" + f.read())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""RocksDB's db_stress and db_crashtest.py with our table, memtable and Env.

Every db_stress process runs through ./db_stress_ours, which writes an OPTIONS
file from db_stress's flags (table_factory=CuckooHashTable,
memtable_factory=striped_hash, merge_operator=put) and adds
--options_file and --env_uri=AsyncExecutorEnv.

  run_stress.py --short                  # CI: every mode, about 5 minutes
  run_stress.py --mode blackbox --duration 3600
  run_stress.py --mode nocrash --mmap_read 1 --ops_per_thread 200000

Modes: nocrash (one db_stress run with --reopen, no kills; --mmap_read picks
the read path, both by default), blackbox (db_crashtest.py kills db_stress
every --interval seconds; each restart verifies every key), whitebox
(db_crashtest.py whitebox: db_stress kills itself at random kill points in
RocksDB's write, flush and compaction paths, then runs to the end, reopening
20 times, under level, universal and FIFO compaction in turn; in a release
build the kill points are compiled out). With a debug build of RocksDB
(./setup.sh rocksdb-tests) the crash tests also inject read, write and
metadata faults. Exits non-zero if any run fails;
keeps the work folder of a failed run (--work, default a temporary one).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
WRAPPER = os.path.join(HERE, "db_stress_ours")
sys.path.insert(0, HERE)
import stress_options  # noqa: E402
DEFAULT_BIN = os.path.join(
    os.environ.get("ROCKSDB_CUCKOO_CACHE",
                   os.path.expanduser("~/.cache/rocksdb-cuckoo")),
    "rocksdb-7.8.3-intree")

# Flags every run passes, with why.
FIXED = {
    # Asks for rocksdb.block-cache-* properties, which only BlockBasedTable
    # answers; with any other table the call fails and db_stress counts an error.
    "get_property_one_in": 0,
    # Our table refuses user-defined timestamps at DB open (hashes user keys
    # as bytes; no timestamp-aware lookup), so every run would fail to open.
    "user_timestamp_size": 0,
    # db_stress installs its compaction filter only when it builds options
    # from flags, never with --options_file; db_crashtest.py would still turn
    # snapshots and iterators off for it.
    "enable_compaction_filter": 0,
    # The batched mode turns delete ranges and ingestion off and checks less;
    # the default mode checks every key against its expected state.
    "test_batches_snapshots": 0,
    # RocksDB (7.8.3 to 11.x) implements TTL and periodic compaction for
    # BlockBasedTable only and refuses to open a DB with another table.
    "compaction_ttl": 0,
    "periodic_compaction_seconds": 0,
    # Required by backup_one_in.
    "clear_column_family_one_in": 0,
    # RocksDB's memtable list: a manual flush (GetLiveFiles, Checkpoint,
    # CompactRange) of a column family whose automatic flush is already
    # queued adds no request of its own; the queued flush picks only the
    # older memtables yet clears the flush-requested flag, and with two
    # memtables needed to merge the new one is never flushed, so the manual
    # flush waits forever (seen in 7.8.3 with any Env; the same code is in
    # 9.10's MemTableList::PickMemtablesToFlush).
    "min_write_buffer_number_to_merge": 1,
    # Off by default. On, RocksDB's file readers record every read in the
    # column family's histograms, which a DB close frees before it closes
    # the family's tables: what a table reads in the background must not
    # use them (our loader once did), and reopens under load check that.
    "statistics": 1,
}

# And with a release build: fault injection works through sync points,
# compiled out there (RocksDB 9's db_stress refuses the flags; 7.8.3 has only
# the first). A debug build (DEBUG_LEVEL=1) leaves them to db_crashtest.py.
FIXED_RELEASE = {
    "read_fault_one_in": 0,
    "metadata_read_fault_one_in": 0,
    "metadata_write_fault_one_in": 0,
}

# And with RocksDB 7:
FIXED_7 = {
    # 7.8.3 marks a bottommost file for compaction while any sequence number
    # in it is nonzero, but keeps the ones these options preserve: the same
    # file is recompacted without end (thousands of BottommostFiles
    # compactions a minute), starving the test of background threads.
    "preserve_internal_time_seconds": 0,
    "preclude_last_level_data_seconds": 0,
}

# And with RocksDB 9 (db_stress and BackupEngine assume BlockBasedTable):
FIXED_9 = {
    # Its SetOptions draws block_based_table_factory's options, which any
    # other table factory refuses; db_stress then stops with an error.
    "set_options_one_in": 0,
    # Backups named by DB session id (one of db_stress's random choices)
    # read each table file through SstFileDumper, which opens RocksDB's
    # built-in formats only; tests/db/backup_db_test.cc covers BackupEngine
    # with the naming that works (kLegacyCrc32cAndFileSize).
    "backup_one_in": 0,
    # Drawn one run in ten; the striped_hash memtable refuses it at DB open
    # (NotSupported: it would re-sort the memtable for every update).
    "inplace_update_support": 0,
}

# Faults injected while the DB reopens, off with RocksDB 9 and 10 and in
# release builds. Seen with 9.x: a read error injected into db_stress's own
# read of its --options_file ends the run before it can retry ("Unable to
# load options file ... injected read error"); a write error injected while
# the DB reopens can stay until the next close, which then fails ("Non-ok
# close status: ... injected write error"; 9.11.2's own db_stress with
# BlockBasedTable, the skip list and the default Env fails the same way).
# 11.8.1's debug build passed with them (blackbox, 362 s, the 3 of 11 runs
# that db_crashtest.py left them on), so there it draws them.
FIXED_OPEN_FAULTS = {
    "open_metadata_read_fault_one_in": 0,
    "open_read_fault_one_in": 0,
    "open_write_fault_one_in": 0,
    "open_metadata_write_fault_one_in": 0,
}

# Features asked for, how often (one in N operations of a thread).
SHORT = {
    "max_key": 100000,
    "threads": 8,
    "column_families": 4,
    "acquire_snapshot_one_in": 100,
    "snapshot_hold_ops": 2000,
    "backup_one_in": 20000,
    "checkpoint_one_in": 20000,
    "compact_files_one_in": 2000,
    "compact_range_one_in": 2000,
    "flush_one_in": 2000,
    "verify_checksum_one_in": 5000,
    "get_live_files_one_in": 5000,  # RocksDB 9: get_live_files_apis_one_in
    "get_live_files_apis_one_in": 5000,
    "approximate_size_one_in": 100,
    "verify_db_one_in": 20000,
    "verify_iterator_with_expected_state_one_in": 5,
    "write_buffer_size": 1 << 20,
    "target_file_size_base": 1 << 20,
    "max_bytes_for_level_base": 4 << 20,
}
# The nocrash run's mix; the crash tests keep db_crashtest.py's (random
# prefix_size and use_multiget per run, 1% delete ranges).
NOCRASH_MIX = {
    "prefix_size": 7,
    "readpercent": 40,
    "prefixpercent": 5,
    "writepercent": 35,
    "delpercent": 5,
    "delrangepercent": 5,
    "iterpercent": 10,
}
LONG = dict(SHORT, max_key=1000000, threads=16, column_families=10,
            backup_one_in=100000, checkpoint_one_in=100000,
            write_buffer_size=4 << 20, target_file_size_base=2 << 20,
            max_bytes_for_level_base=10 << 20)


def log(msg):
    print("run_stress: " + msg, flush=True)


def rocksdb_major(tree):
    """ROCKSDB_MAJOR of the source tree the in-tree db_stress was built in."""
    with open(os.path.join(tree, "include", "rocksdb", "version.h")) as f:
        return int(re.search(r"#define ROCKSDB_MAJOR (\d+)", f.read()).group(1))


def fixed_flags(args):
    flags = dict(FIXED, **(FIXED_9 if args.major >= 9 else FIXED_7))
    if not args.debug_build:
        flags.update(FIXED_RELEASE)
    if args.major >= 9 and (args.major < 11 or not args.debug_build):
        flags.update(FIXED_OPEN_FAULTS)
    return flags


def is_debug_build(tree):
    """Whether setup.sh built the tree with asserts and sync points on (its
    make arguments are kept beside the tree)."""
    try:
        with open(os.path.join(tree, ".rocksdb_cuckoo_make_args")) as f:
            return "DEBUG_LEVEL=1" in f.read().split()
    except OSError:
        return False


# Flags above that only some supported RocksDB releases have.
NOT_IN_EVERY_RELEASE = {
    "metadata_read_fault_one_in", "metadata_write_fault_one_in",  # 9.x
    "open_metadata_read_fault_one_in",  # 9.x
    "get_live_files_one_in",  # 7.x; 9.x splits it:
    "get_live_files_apis_one_in",
}


def flag_args(args, d):
    """--name=value for each flag the db_stress under test has: flags come
    and go between RocksDB releases, and db_stress refuses unknown ones.
    Only flags listed in NOT_IN_EVERY_RELEASE may be missing, so that a
    misspelled flag fails instead of silently not applying."""
    unknown = sorted(set(d) - args.known_flags - NOT_IN_EVERY_RELEASE)
    if unknown:
        raise SystemExit("run_stress: %s has no flag --%s" %
                         (args.bin_dir, unknown[0]))
    known = {k: v for k, v in d.items() if k in args.known_flags}
    # The user's own flags go last (the last one wins) and are never dropped.
    return ["--%s=%s" % kv for kv in list(known.items()) + list(
        args.extra.items())]


def env_for(args, work):
    env = dict(os.environ)
    env["CUCKOO_DB_STRESS"] = os.path.join(args.bin_dir, "db_stress")
    env["CUCKOO_STRESS_WORK"] = work
    env["TEST_TMPDIR"] = work
    # db_crashtest.py turns read faults and mocked direct IO off in a release
    # build (both need sync points).
    env["DEBUG_LEVEL"] = "1" if args.debug_build else "0"
    # For an ASan build: db_stress's own leak on the --options_file path,
    # quietly (db_crashtest.py fails a run that writes to stderr).
    env["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % (
        os.path.join(HERE, "lsan_suppressions.txt"))
    if args.preload:
        env["LD_PRELOAD"] = args.preload
    if args.table_options is not None:
        env["CUCKOO_TABLE_OPTIONS"] = args.table_options
    if args.memtable_options is not None:
        env["CUCKOO_MEMTABLE_OPTIONS"] = args.memtable_options
    return env


def ops_in(work, since):
    """(ops, finished runs, killed runs) of the db_stress runs after `since`."""
    ops = finished = killed = 0
    for path in sorted(glob.glob(os.path.join(work, "run-*.stdout"))):
        if os.path.getmtime(path) < since:
            continue
        text = open(path, errors="replace").read()
        m = re.findall(r"\(\d+% of (\d+) ops\)", text)
        if m:
            ops += int(m[-1])
            finished += 1
            continue
        # Killed: each thread reports at the same thresholds; the largest one
        # reached times the thread count is the run's count within one step.
        done = [int(x) for x in re.findall(r"finished (\d+) ops", text)]
        threads = re.search(r"--threads=(\d+)", open(
            path[:-len(".stdout")] + ".cmd").read())
        ops += max(done, default=0) * int(threads.group(1) if threads else 32)
        killed += 1
    return ops, finished, killed


def check_plugin(db):
    import importlib.machinery
    wrapper = importlib.machinery.SourceFileLoader(
        "db_stress_ours", WRAPPER).load_module()
    problems = wrapper.check_plugin_in_use(db, closed_cleanly=True)
    if not glob.glob(os.path.join(db, "*.sst")):
        problems.append(db + " holds no table file")
    return problems


def descendants(pid):
    """Pids of every live process below `pid`."""
    children = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(
            int(stat.split("/")[2]))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def run_watched(cmd, env, timeout, log_path):
    """Runs cmd with its output in log_path; returns (exit status or
    "timeout", output). A run that outlives `timeout` is a hang until shown
    otherwise: the threads of every process it started are written to the
    log (gdb) before the whole group is killed."""
    with open(log_path, "w") as out:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = "timeout"
            out.write("\nrun_stress: still running after %d s; threads:\n"
                      % timeout)
            out.flush()
            for pid in descendants(p.pid):
                exe = os.path.realpath("/proc/%d/exe" % pid)
                if "python" in os.path.basename(exe):
                    continue
                out.write("\n=== pid %d (%s) ===\n" % (pid, exe))
                out.flush()
                # And a core file beside the log, to look at the hang later.
                subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx",
                                "-ex", "thread apply all bt", "-ex",
                                "gcore %s.core.%d" % (log_path, pid)],
                               stdout=out, stderr=subprocess.STDOUT,
                               timeout=120, check=False)
            os.killpg(p.pid, 9)
            p.wait()
    return rc, open(log_path, errors="replace").read()


def run_nocrash(args, sizes, work, mmap):
    db = os.path.join(work, "nocrash-db-mmap%d" % mmap)
    expected = os.path.join(work, "nocrash-expected-mmap%d" % mmap)
    os.makedirs(expected, exist_ok=True)
    flags = dict(sizes, **NOCRASH_MIX, **fixed_flags(args))
    flags.update({
        "db": db, "destroy_db_initially": 1, "mmap_read": mmap,
        # The expected values in files, as db_crashtest.py keeps them: 9.11's
        # db_stress dereferences a null persisted sequence number at open
        # when they are only in memory.
        "expected_values_dir": expected,
        "reopen": args.reopen, "ops_per_thread": args.ops_per_thread,
        "seed": args.seed, "progress_reports": 0,
        "ingest_external_file_one_in": args.ingest_one_in,
        # mmap reads and direct reads exclude each other.
        "use_direct_reads": 0,
    })
    # One run each way: MultiGet with mapped files, Get with loaded ones.
    flags["use_multiget"] = mmap
    if mmap == 0:
        # Wide-column entities in our files; db_stress refuses them together
        # with ingestion and merges, which the mmap_read=1 run covers.
        flags.update(use_put_entity_one_in=5, ingest_external_file_one_in=0,
                     use_merge=0)
    else:
        flags["use_merge"] = 1
    if "remote_compaction_worker_threads" in args.known_flags:
        # 10.x+ db_stress compacts remotely by default. As db_crashtest.py
        # does: no checkpoints with it (verifying a checkpoint opens a DB on
        # the same CompactionService, whose close aborts the main DB's
        # waiting jobs and stops it), and no mmap reads; so the mapped run
        # compacts locally.
        # 10.x's db_stress also requires the WAL off with it (its worker
        # would recover from the WAL), which nocrash's reopens need: there
        # both runs compact locally (the crash tests still draw it).
        if mmap or args.major < 11:
            flags["remote_compaction_worker_threads"] = 0
        else:
            flags["checkpoint_one_in"] = 0
    cmd = [WRAPPER] + flag_args(args, flags)
    log("nocrash mmap_read=%d: %s" % (mmap, " ".join(cmd)))
    start = time.time()
    rc, err = run_watched(cmd, env_for(args, work), args.timeout,
                          os.path.join(work, "nocrash-mmap%d.log" % mmap))
    took = time.time() - start
    out_path = sorted(glob.glob(os.path.join(work, "run-*.stdout")),
                      key=os.path.getmtime)[-1]
    out = open(out_path, errors="replace").read()
    ops, _, _ = ops_in(work, start)
    bad = [l for l in err.splitlines()
           if re.search(r"error|fail|corrupt", l, re.I)
           and "Got errors 0 times" not in l]
    problems = [] if rc == 0 else ["exit status %s" % rc]
    if bad:
        problems.append("stderr: " + " | ".join(bad[:5]))
    if not re.search(r"Got errors 0 times", out):
        problems += ["db_stress counted errors"]
    if rc == 0:
        problems += check_plugin(db)
    result = "ok" if not problems else "FAILED: " + "; ".join(problems)
    log("nocrash mmap_read=%d: %s in %.0f s, %d ops, %d reopens (%s)" % (
        mmap, result, took, ops, args.reopen, out_path))
    if problems:
        sys.stdout.write(out[-4000:] + "\n" + err[-4000:] + "\n")
    return not problems, "nocrash mmap_read=%d: %s, %.0f s, %d ops" % (
        mmap, result, took, ops)


def run_crashtest(args, sizes, work, kind):
    flags = dict(sizes, **fixed_flags(args))
    flags.update({
        "ingest_external_file_one_in": args.ingest_one_in,
        "progress_reports": 1,
        # Its 3-in-10 draw, once per test, would turn ingestion and merges off
        # for the whole test; entities are covered by nocrash mmap_read=0.
        "use_put_entity_one_in": 0,
        "mmap_read": args.mmap_read if args.mmap_read is not None
        else (1 if kind == "blackbox" else 0),
    })
    if args.short:
        # Direct reads of blob files on a VM disk: a whitebox run drawing
        # both made 240 ops/s and outlived its 300 s budget every time
        # (measured). The short run keeps to the page cache; long runs
        # still draw direct I/O.
        flags["use_direct_reads"] = 0
        flags["use_direct_io_for_flush_and_compaction"] = 0
    # db_crashtest.py's own flags, which db_stress does not have.
    own = {"duration": args.duration}
    if kind == "blackbox":
        own["interval"] = args.interval
    elif not args.debug_build:
        # Release build: no kill point fires, so the first (kill) runs go to
        # 100 x ops_per_thread; keep them to a fraction of the duration. Its
        # FIFO runs get a fifth, which must stay above its 20 reopens.
        flags["ops_per_thread"] = args.whitebox_ops_per_thread
    elif args.short:
        # Debug build: a kill run lasts until a kill point fires and the
        # check runs that follow (no kill) go to ops_per_thread; with
        # db_crashtest.py's defaults a short run outlived its budget on two
        # cores with the DB still working when it was stopped. Kill ten
        # times as often, and check fewer operations.
        own["random_kill_odd"] = 88889
        flags["ops_per_thread"] = args.ops_per_thread
    cmd = [sys.executable, args.crashtest, kind, "--stress_cmd=" + WRAPPER]
    cmd += ["--%s=%s" % kv for kv in own.items()] + flag_args(args, flags)
    log("%s: %s" % (kind, " ".join(cmd)))
    start = time.time()
    rc, text = run_watched(cmd, env_for(args, work),
                           args.duration + args.timeout,
                           os.path.join(work, kind + ".log"))
    took = time.time() - start
    ops, finished, killed = ops_in(work, start)
    # 11.x stops db_stress with SIGTERM first ("TERMINATED pid") and kills
    # it only if that fails ("KILLED pid ..."); 7.x and 9.x print "KILLED pid".
    kills = len(re.findall(r"^(?:KILLED|TERMINATED) \d+", text, re.M))
    # Whitebox in a debug build: db_stress kills itself at a kill point
    # (db_crashtest.py prints the negative exit status).
    kills += len(re.findall(r"kill option=\d+, exitcode=-\d+", text))
    ok = rc == 0
    result = "ok" if ok else "FAILED (exit %s)" % rc
    summary = ("%s: %s, %.0f s, %d db_stress runs (%d killed by the test, %d "
               "ran to the end), about %d ops" % (
                   kind, result, took, finished + killed, kills, finished, ops))
    log(summary + " (%s)" % os.path.join(work, kind + ".log"))
    if not ok:
        sys.stdout.write(text[-12000:] + "\n")
    return ok, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mode", default="all",
                    choices=["all", "nocrash", "blackbox", "whitebox"])
    ap.add_argument("--short", action="store_true",
                    help="CI sizes: whole run about 5 minutes on 2 cores")
    ap.add_argument("--bin_dir", default=DEFAULT_BIN,
                    help="folder holding db_stress (in-tree build, plugin "
                         "compiled in)")
    ap.add_argument("--preload", default=None,
                    help="LD_PRELOAD for a db_stress built without the plugin "
                         "(build/librocksdb_cuckoo.so)")
    ap.add_argument("--crashtest", default=None,
                    help="db_crashtest.py (default: from the RocksDB source)")
    ap.add_argument("--duration", type=int, default=None,
                    help="seconds of each crash test (short 100/60, long 3600)")
    ap.add_argument("--interval", type=int, default=None,
                    help="blackbox: seconds between kills (short 25, long 120)")
    ap.add_argument("--mmap_read", type=int, choices=[0, 1], default=None,
                    help="nocrash: only this read path (default both); crash "
                         "tests: default blackbox 1, whitebox 0")
    ap.add_argument("--ops_per_thread", type=int, default=None)
    ap.add_argument("--whitebox_ops_per_thread", type=int, default=None)
    ap.add_argument("--reopen", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--ingest_one_in", type=int, default=1000,
                    help="ingest_external_file_one_in (0: off)")
    ap.add_argument("--table_options", default=None,
                    help="CuckooHashTable options, e.g. "
                         "'hash_table_ratio=0.5;checksum=kCRC32c'")
    ap.add_argument("--memtable_options", default=None,
                    help="striped_hash options, e.g. 'stripe_mode=core'")
    ap.add_argument("--timeout", type=int, default=None,
                    help="seconds a nocrash run may take; crash tests get "
                         "their duration plus this")
    ap.add_argument("--work", default=None, help="work folder (kept)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("extra", nargs="*",
                    help="more db_stress flags, name=value (override ours)")
    args = ap.parse_args()

    short = args.short
    sizes = SHORT if short else LONG
    d = lambda v, s, l: v if v is not None else (s if short else l)
    args.duration = d(args.duration, None, 3600)
    args.interval = d(args.interval, 25, 120)
    args.ops_per_thread = d(args.ops_per_thread, 30000, 300000)
    args.whitebox_ops_per_thread = d(args.whitebox_ops_per_thread, 200, 5000)
    args.reopen = d(args.reopen, 10, 20)
    args.seed = d(args.seed, int(time.time()) % 100000, int(time.time()) % 100000)
    args.timeout = d(args.timeout, 240, 7200)
    args.extra = dict(e.lstrip("-").split("=", 1) for e in args.extra)
    # The script of the same source tree as db_stress, else Debian's source.
    if args.crashtest is None:
        args.crashtest = os.path.join(args.bin_dir, "tools", "db_crashtest.py")
        if not os.path.exists(args.crashtest):
            args.crashtest = os.path.join(
                REPO, ".deps", "rocksdb-src", "tools", "db_crashtest.py")
    for path in (os.path.join(args.bin_dir, "db_stress"), args.crashtest):
        if not os.path.exists(path):
            log("missing %s (build it with ./setup.sh intree)" % path)
            return 2

    args.major = rocksdb_major(args.bin_dir)
    args.debug_build = is_debug_build(args.bin_dir)
    work = args.work or tempfile.mkdtemp(prefix="cuckoo-stress-")
    os.makedirs(work, exist_ok=True)
    args.known_flags = set(stress_options.flag_defaults(
        os.path.join(args.bin_dir, "db_stress"), work))
    log("work folder %s, seed %d, %s build" % (
        work, args.seed, "debug" if args.debug_build else "release"))
    results = []
    if args.mode in ("all", "nocrash"):
        for mmap in ([args.mmap_read] if args.mmap_read is not None else [0, 1]):
            results.append(run_nocrash(args, sizes, work, mmap))
    for kind in ("blackbox", "whitebox"):
        if args.mode in ("all", kind):
            saved = args.duration
            if args.duration is None:
                args.duration = 100 if kind == "blackbox" else 60
            results.append(run_crashtest(args, sizes, work, kind))
            args.duration = saved
    log("summary:")
    for ok, line in results:
        print("  " + line)
    ok = all(r[0] for r in results)
    if ok and not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    elif not ok:
        log("kept %s" % work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

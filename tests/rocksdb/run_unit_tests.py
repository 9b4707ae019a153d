#!/usr/bin/env python3
"""RocksDB's own unit tests, from a debug build of RocksDB with the plugin
compiled in and the test tree patched (patch_test_tree.py), run once without
our parts (the baseline) and once per part with it substituted:

  table     ROCKSDB_CUCKOO_TEST_TABLE=CuckooHashTable (DBTestBase::GetOptions)
  memtable  ROCKSDB_CUCKOO_TEST_MEMTABLE=striped_hash (DBTestBase::GetOptions)
  env       TEST_ENV_URI=AsyncExecutorEnv (every test that builds its Env
            with test::CreateEnvFromSystem)

A test proves per test that its part ran: with ROCKSDB_CUCKOO_PRINT_USAGE
set, the process prints on exit what the plugin did (tables opened or built,
memtables created, background jobs our Env ran). A test that passed without
its part doing anything (it swapped in RocksDB's own after GetOptions, or
never flushed with our Env) counts as "not ours", apart from the passes.

Each test runs in a process of its own under a timeout, --jobs at a time, in
a folder of its own (TEST_TMPDIR). Every test that fails with a part runs
again without our parts (the baseline; --full-baseline runs all of them
there): one that fails in both is RocksDB's own on this machine; one that
fails only with a part is a new failure unless expected_failures.txt lists
it, with its reason.

  run_unit_tests.py --tree DIR [--binaries a,b] [--parts table,memtable,env]
                    [--filter GLOB] [--jobs 2] [--timeout 300] [--out DIR]

Results are kept per binary and part in --out (JSONL, one line a test) and
reused while the binary is unchanged, so a stopped run goes on where it
stopped. Exits 1 when any part has a new failure.
"""
import argparse
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected_failures.txt")

PARTS = {
    "baseline": {},
    "table": {"ROCKSDB_CUCKOO_TEST_TABLE": "CuckooHashTable"},
    "memtable": {"ROCKSDB_CUCKOO_TEST_MEMTABLE": "striped_hash"},
    "env": {},  # TEST_ENV_URI (env_for)
}
# What proves, per test, that a part ran: the counters of the plugin's usage
# line (ROCKSDB_CUCKOO_PRINT_USAGE) that the part moves.
USAGE_LINE = re.compile(r"rocksdb-cuckoo usage: (.*)")
USED_COUNTERS = {"baseline": ("tables_opened", "tables_built",
                              "memtables_created", "env_jobs_run"),
                 "table": ("tables_opened", "tables_built"),
                 "memtable": ("memtables_created",),
                 "env": ("env_jobs_run",)}


def used_in(part, text):
    """Whether the usage line shows `part` ran (None without a line: the
    process died before its exit handlers)."""
    found = USAGE_LINE.findall(text)
    if not found:
        return None
    counts = dict(field.split("=") for field in found[-1].split())
    return any(int(counts.get(c, 0)) > 0 for c in USED_COUNTERS[part])

# The DB-level suites (they build options with DBTestBase::GetOptions and
# their Env from TEST_ENV_URI) and env_test's thread-pool contract. A
# release has those whose source it holds (11.x split db_test2 into
# db_etc2_test and db_etc3_test).
CANDIDATES = [
    "db_basic_test", "db_test", "db_test2", "db_etc2_test", "db_etc3_test",
    "db_iterator_test", "db_range_del_test", "external_sst_file_test",
    "external_sst_file_basic_test", "db_merge_operator_test",
    "db_merge_operand_test", "db_tailing_iter_test", "db_wal_test",
    "db_flush_test", "db_compaction_test", "db_memtable_test",
    "column_family_test", "env_basic_test", "env_test",
]


def binaries_of(tree):
    return [b for b in CANDIDATES
            if any(os.path.exists(os.path.join(tree, d, b + ".cc"))
                   for d in ("db", "env"))]


# Tests of a binary a part applies to; others are not run for it (env_test
# reads TEST_ENV_URI only in the TestEnvUri instantiation).
PART_FILTER = {("env", "env_test"): "TestEnvUri/*"}


def list_tests(binary, env=None):
    """The binary's tests; `env` matters where a part adds tests (env_test's
    TestEnvUri instantiation exists only with TEST_ENV_URI set)."""
    out = subprocess.run([binary, "--gtest_list_tests"], capture_output=True,
                         text=True, check=True, env=env).stdout
    tests, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        name = line.split("#")[0].strip()
        if not line.startswith(" "):
            suite = name
        elif not name.startswith("DISABLED_") and \
                not suite.startswith("DISABLED_"):
            tests.append(suite + name)
    return tests


def env_for(part, test_dir):
    env = dict(os.environ)
    for p in PARTS.values():
        for k in p:
            env.pop(k, None)
    env.pop("TEST_ENV_URI", None)
    env.update(PARTS[part])
    env["TEST_TMPDIR"] = test_dir
    env["ROCKSDB_CUCKOO_PRINT_USAGE"] = "1"
    if part == "env":
        env["TEST_ENV_URI"] = "AsyncExecutorEnv"
    return env


def run_one(binary, test, part, timeout, scratch):
    test_dir = tempfile.mkdtemp(prefix="t-", dir=scratch)
    start = time.time()
    p = subprocess.Popen([binary, "--gtest_filter=" + test],
                         env=env_for(part, test_dir), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        rc = "timeout"
    text = out.decode(errors="replace")
    used = used_in(part, text)
    if rc == "timeout":
        outcome = "timeout"
    elif rc == 0 and "[  SKIPPED ]" in text:
        outcome = "skipped"
    elif rc == 0 and "[  PASSED  ] 1 test" in text:
        outcome = "passed"
    elif rc == 0:
        outcome = "notrun"  # filtered out by the binary itself
    elif rc < 0:
        outcome = "crashed (signal %d)" % -rc
    else:
        outcome = "failed"
    shutil.rmtree(test_dir, ignore_errors=True)
    result = {"test": test, "outcome": outcome, "used": used,
              "seconds": round(time.time() - start, 2)}
    if outcome not in ("passed", "skipped", "notrun"):
        result["output"] = text[-6000:]
    return result


# The plugin code (in-tree copy, plugin/cuckoo/...) a part runs: folders,
# less the Env's own files for the table and the memtable. Other code
# cannot change its results.
ENV_CODE = ("util/executor", "util/async_executor_env",
            "util/scheduling_env_wrapper")
PART_CODE = {
    "baseline": ([], ()),
    "table": (["table", "util", "cache", "plugin"], ENV_CODE),
    "memtable": (["memtable", "util", "cache", "plugin"], ENV_CODE),
    "env": (["util", "cache", "plugin"], ()),
}


def code_stamp(tree, name, part):
    """A hash of the code a binary's results depend on with `part`: the
    test's source, the patched harness and the plugin folders the part runs
    (RocksDB's own sources do not change within a tree). Results are reused
    while it is the same, so fixing the table reruns only the table's."""
    h = hashlib.sha256()
    files = [os.path.join(tree, d, name + ".cc") for d in ("db", "env")]
    files += [os.path.join(tree, "db", "db_test_util.cc")]
    plugin = os.path.join(tree, "plugin", "cuckoo")
    folders, excluded = PART_CODE[part]
    for folder in folders:
        for root, dirs, names in os.walk(os.path.join(plugin, folder)):
            dirs.sort()
            files += [os.path.join(root, n) for n in sorted(names)
                      if n.endswith((".h", ".cc")) and not os.path.relpath(
                          os.path.join(root, n), plugin).startswith(excluded)]
    for path in files:
        if os.path.exists(path):
            h.update(path.encode())
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:16]


def load(path, stamp):
    """Results of an earlier run of the same code (code_stamp)."""
    results = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                if r.get("stamp") == stamp:
                    results[r["test"]] = r
    return results


def run_part(args, binary, part, tests, scratch):
    name = os.path.basename(binary)
    path = os.path.join(args.out, "%s.%s.jsonl" % (name, part))
    stamp = code_stamp(args.tree, name, part)
    results = load(path, stamp)
    todo = [t for t in tests if t not in results or
            (args.rerun_failed and bad(results[t]))]
    lock = threading.Lock()
    with open(path, "a") as f, concurrent.futures.ThreadPoolExecutor(
            args.jobs) as pool:
        futures = [pool.submit(run_one, binary, t, part, args.timeout, scratch)
                   for t in todo]
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            r = fut.result()
            r["stamp"] = stamp
            with lock:
                results[r["test"]] = r
                f.write(json.dumps(r) + "\n")
                f.flush()
            if r["outcome"] not in ("passed", "skipped", "notrun"):
                print("  %s %s %s: %s" % (name, part, r["test"], r["outcome"]),
                      flush=True)
    return {t: results[t] for t in tests}


def load_expected(path):
    """[(part, binary, test glob, reason)] from expected_failures.txt."""
    expected = []
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(None, 3)
        if len(fields) < 4:
            raise SystemExit("%s:%d: want <part> <binary> <test> <reason>"
                             % (path, n))
        expected.append(tuple(fields))
    return expected


# Binaries whose tests a later release moved: the list names them by their
# newest binary, and an older release's binary answers to those names too.
LATER_NAMES = {"db_test2": ("db_etc2_test", "db_etc3_test")}


def expected_reason(expected, part, binary, test):
    """(reason, whether the entry names this test alone) or (None, False)."""
    names = (binary,) + LATER_NAMES.get(binary, ())
    for p, b, glob, reason in expected:
        if p == part and any(fnmatch.fnmatch(n, b) for n in names) and \
                fnmatch.fnmatch(test, glob):
            return reason, glob == test
    return None, False


def excerpt(r):
    """What says why a test failed: its failure messages, or the stack of a
    crash (RocksDB prints one on a signal), or the end of its output."""
    lines = r.get("output", "").splitlines()
    for i, line in enumerate(lines):
        if "Received signal" in line:
            return "\n".join([line] + [l for l in lines[i:] if l.startswith(
                "#")][:16])
    if "[ RUN      ]" in r.get("output", ""):
        body = r["output"].split("[ RUN      ]", 1)[1].split("\n", 1)[-1]
        return body.split("[  FAILED  ]", 1)[0][-3000:]
    return "\n".join(lines[-25:])


def bad(r):
    return r is not None and r["outcome"] not in ("passed", "skipped", "notrun")


CATEGORIES = ("passed", "not-ours", "rocksdb-failure", "expected-failure",
              "new-failure", "skipped")


def categorize(r, baseline, reason):
    """One test's result with a part: passed (the part ran), not-ours
    (passed, the part never ran), skipped, rocksdb-failure (fails without
    our parts too), expected-failure (listed) or new-failure."""
    if not bad(r):
        if r["outcome"] != "passed":
            return "skipped"
        return "passed" if r["used"] else "not-ours"
    if bad(baseline):
        return "rocksdb-failure"
    return "expected-failure" if reason is not None else "new-failure"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tree", help="the debug RocksDB tree")
    ap.add_argument("--list-binaries", action="store_true",
                    help="print the binaries the tree has (make goals)")
    ap.add_argument("--binaries", default=None,
                    help="comma-separated (default: the candidates the tree has)")
    ap.add_argument("--parts", default="table,memtable,env")
    ap.add_argument("--full-baseline", action="store_true",
                    help="run every test without our parts, not only those "
                         "that failed with one")
    ap.add_argument("--filter", default="*", help="test names (fnmatch)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--out", default=None,
                    help="results folder (default <tree>/cuckoo-unit-tests)")
    ap.add_argument("--expected", default=EXPECTED)
    ap.add_argument("--report", default=None,
                    help="folder for one compact file per binary and part "
                         "(<binary>.<part>.tsv: test, category, ours in use)")
    ap.add_argument("--rerun-failed", action="store_true",
                    help="run again the tests whose kept result is a failure "
                         "(a busy machine fails timing-sensitive tests)")
    args = ap.parse_args()
    if not args.tree:
        ap.error("--tree is required")
    if args.list_binaries:
        print(" ".join(binaries_of(args.tree)))
        return 0
    args.binaries = args.binaries or ",".join(binaries_of(args.tree))
    args.out = args.out or os.path.join(args.tree, "cuckoo-unit-tests")
    os.makedirs(args.out, exist_ok=True)
    expected = load_expected(args.expected)
    parts = [p for p in args.parts.split(",") if p != "baseline"]
    scratch = tempfile.mkdtemp(prefix="cuckoo-unit-")
    rows, new_failures, stale = [], [], []
    try:
        for name in args.binaries.split(","):
            binary = os.path.join(args.tree, name)
            if not os.path.exists(binary):
                raise SystemExit("run_unit_tests: no %s (build it first)"
                                 % binary)
            tests = [t for t in list_tests(binary)
                     if fnmatch.fnmatch(t, args.filter)]
            by_part = {}
            for part in parts:
                glob = PART_FILTER.get((part, name), "*")
                listed = tests
                if part == "env":
                    listed = [t for t in list_tests(binary, env_for(
                        part, scratch)) if fnmatch.fnmatch(t, args.filter)]
                mine = [t for t in listed if fnmatch.fnmatch(t, glob)]
                print("run_unit_tests: %s, %s: %d tests" % (
                    name, part, len(mine)), flush=True)
                by_part[part] = run_part(args, binary, part, mine, scratch)
            # The baseline: every test with --full-baseline, else the ones
            # that failed with a part (what it is there to explain).
            failing = sorted({t for r in by_part.values() for t in r
                              if bad(r[t])})
            mine = tests if args.full_baseline else failing
            print("run_unit_tests: %s, baseline: %d tests" % (name, len(mine)),
                  flush=True)
            baseline = run_part(args, binary, "baseline", mine, scratch)
            rows.append((name, "baseline", len(baseline),
                         sum(r["outcome"] == "passed"
                             for r in baseline.values()), 0,
                         sum(bad(r) for r in baseline.values()), 0, 0,
                         sum(r["outcome"] in ("skipped", "notrun")
                             for r in baseline.values()),
                         sum(bool(r["used"]) for r in baseline.values())))
            for part, results in by_part.items():
                c = dict.fromkeys(CATEGORIES, 0)
                lines = []
                for t, r in sorted(results.items()):
                    reason, by_name = expected_reason(expected, part, name, t)
                    category = categorize(r, baseline.get(t), reason)
                    c[category] += 1
                    lines.append("%s\t%s\t%s\n" % (
                        t, category, {True: "ours", False: "not-ours",
                                      None: "unknown"}[r["used"]]))
                    if reason is not None and r["outcome"] == "passed":
                        stale.append((part, name, t,
                                      "" if by_name else " (by a wildcard)"))
                    if category == "new-failure":
                        new_failures.append((part, name, t, r))
                rows.append((name, part, len(results), c["passed"],
                             c["not-ours"], c["rocksdb-failure"],
                             c["expected-failure"], c["new-failure"],
                             c["skipped"], None))
                if args.report:
                    os.makedirs(args.report, exist_ok=True)
                    with open(os.path.join(args.report, "%s.%s.tsv" % (
                            name, part)), "w") as f:
                        f.writelines(lines)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    header = "%-22s %-9s %6s %7s %5s %8s %8s %5s %7s %5s"
    print("\n" + header % ("binary", "part", "tests", "passed", "not",
                           "rocksdb", "expected", "new", "skipped", "ours"))
    print(header % ("", "", "", "(ours)", "ours", "failure", "failure",
                    "fail", "", "ran"))
    for name, part, n, passed, not_ours, base, exp, new, skipped, used in rows:
        print("%-22s %-9s %6d %7d %5d %8d %8d %5d %7d %5s" % (
            name, part, n, passed, not_ours, base, exp, new, skipped,
            "-" if used is None else used))
    print("(passed (ours): passed with the part shown running in the test's "
          "process; not ours: passed, the part never ran; rocksdb failure: "
          "fails without our parts too; ours ran, baseline: should be 0)")
    if stale:
        print("\nlisted as expected failures but passed:")
        for s in stale:
            print("  %s %s %s%s" % s)
    if new_failures:
        print("\nNEW FAILURES:")
        for part, name, t, r in new_failures:
            print("  %s %s %s: %s" % (part, name, t, r["outcome"]))
        for part, name, t, r in new_failures[:20]:
            print("\n--- %s %s %s\n%s" % (part, name, t, excerpt(r)))
    return 1 if new_failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Summarizes repeated table_reader_bench processes run with
--benchmark_format=csv: ns per key of each benchmark, median [min-max] over
the processes, and each format's rate as a ratio to the one-read floor and
to the built-in CuckooTable, taken process by process (the two ran in the
same process, on the same machine state) and then the median [min-max].

  for i in 1 2 3; do table_reader_bench --benchmark_format=csv > run$i.csv; done
  db_bench_ext/table_reader_summary.py run1.csv run2.csv run3.csv
"""
import csv
import statistics
import sys


def read_run(path):
    """{benchmark name: ns per key} of one process."""
    rows = {}
    with open(path) as f:
        lines = [line for line in f if line.startswith(("name,", '"'))]
    for row in csv.DictReader(lines):
        if row.get("error_occurred") == "true":
            sys.exit(f"{path}: {row['name']}: {row['error_message']}")
        rows[row["name"]] = 1e9 / float(row["items_per_second"])
    return rows


def spread(values):
    return (f"{statistics.median(values):.1f} "
            f"[{min(values):.1f}-{max(values):.1f}]")


def anchor_name(name, anchor):
    """The same benchmark on the anchor format: MultiGet/<format>/16/...
    or Get/present/<format>/..."""
    parts = name.split("/")
    at = 1 if parts[0].startswith("MultiGet") else 2
    parts[at] = anchor
    return "/".join(parts)


def main(paths):
    runs = [read_run(p) for p in paths]
    names = [n for n in runs[0] if all(n in r for r in runs)]
    print(f"{len(runs)} processes; ns per key, median [min-max]; "
          "rate ratios per process, then median [min-max]")
    for name in names:
        line = f"{name:58} {spread([r[name] for r in runs]):>22}"
        for anchor, label in (("one_read_floor", "floor"),
                              ("builtin_cuckoo", "built-in")):
            other = anchor_name(name, anchor)
            if other == name or not all(other in r for r in runs):
                continue
            ratios = [r[other] / r[name] for r in runs]
            line += (f"  /{label} {statistics.median(ratios):.2f}x "
                     f"[{min(ratios):.2f}-{max(ratios):.2f}]")
        print(line)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

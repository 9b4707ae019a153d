#!/usr/bin/env python3
"""Summarizes memory_mode.sh's runs: per configuration and allocator setting,
the median (and min-max) over repetitions of ops/s, peak RSS and
fragmentation, with ratios of the medians to glibc malloc's in the same
configuration. Prints the table and writes memory_summary.csv and
memory_mode.png next to the runs."""
import argparse
import csv
import math
import os
import statistics
import sys
from collections import defaultdict

# The order of the table and the plot (any other label follows).
ORDER = ["glibc", "jemalloc", "jemalloc_bg", "jemalloc_thp_auto",
         "jemalloc_thp_always", "jemalloc_arena", "tools_default",
         "tools_default_arena"]
METRICS = [  # column, title, unit, better
    ("ops", "ops/s", "ops/s", "higher"),
    ("ops_per_cpu_s", "ops per CPU second", "ops/CPU-s", "higher"),
    ("peak_rss_mib", "peak RSS", "MiB", "lower"),
    ("fragmentation", "fragmentation (RSS/allocated - 1)", "", "lower"),
]


def load(path):
    groups = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            groups[(row["config"], row["label"])].append(row)
    return groups


def column(rows, name):
    values = [float(r[name]) for r in rows]
    return [v for v in values if not math.isnan(v)]


def summarize(groups):
    summary = {}
    for key, rows in groups.items():
        entry = {"runs": len(rows), "memtable": rows[0]["memtable"],
                 "settings": rows[0]["jemalloc_settings"],
                 "malloc": rows[0]["malloc"]}
        for name, *_ in METRICS + [("initial_rss_mib",), ("rss_mib",),
                                   ("allocated_mib",)]:
            values = column(rows, name)
            entry[name] = ((statistics.median(values), min(values),
                            max(values)) if values else None)
        summary[key] = entry
    return summary


def ordered_labels(summary):
    labels = {label for _, label in summary}
    return ([l for l in ORDER if l in labels] +
            sorted(labels - set(ORDER)))


def ratio(summary, config, label, name):
    base = summary.get((config, "glibc"), {}).get(name)
    value = summary[(config, label)][name]
    if not base or not value or base[0] == 0:
        return None
    return value[0] / base[0]


def fmt(stat, digits):
    if stat is None:
        return "n/a"
    med, lo, hi = stat
    return f"{med:.{digits}f} [{lo:.{digits}f}-{hi:.{digits}f}]"


def print_table(summary, configs, labels):
    digits = {"ops": 0, "ops_per_cpu_s": 0, "peak_rss_mib": 1,
              "fragmentation": 3}
    header = ["config", "setting"]
    for name, title, unit, _ in METRICS:
        header += [f"{title} median [min-max]", "x glibc"]
    header += ["allocated MiB", "RSS at start MiB"]
    rows = []
    for config in configs:
        for label in labels:
            if (config, label) not in summary:
                continue
            s = summary[(config, label)]
            row = [config, label]
            for name, *_ in METRICS:
                r = ratio(summary, config, label, name)
                row += [fmt(s[name], digits[name]), f"{r:.2f}" if r else "n/a"]
            row += [fmt(s["allocated_mib"], 1), fmt(s["initial_rss_mib"], 1)]
            rows.append(row)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "| " + " | ".join(
        str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def write_csv(path, summary, configs, labels):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["config", "setting", "memtable", "jemalloc_settings",
                      "runs"] +
                     [f"{n}_{k}" for n, *_ in METRICS
                      for k in ("median", "min", "max")] +
                     [f"{n}_vs_glibc" for n, *_ in METRICS])
        for config in configs:
            for label in labels:
                s = summary.get((config, label))
                if s is None:
                    continue
                cells = [config, label, s["memtable"], s["settings"],
                         s["runs"]]
                for name, *_ in METRICS:
                    cells += list(s[name]) if s[name] else ["", "", ""]
                for name, *_ in METRICS:
                    r = ratio(summary, config, label, name)
                    cells.append(f"{r:.4f}" if r else "")
                out.writerow(cells)


def plot(path, summary, configs, labels, note):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(METRICS), figsize=(20, 5.5))
    width = 0.8 / len(configs)
    for ax, (name, title, unit, better) in zip(axes, METRICS):
        for c, config in enumerate(configs):
            xs, meds, errs = [], [], [[], []]
            for i, label in enumerate(labels):
                stat = summary.get((config, label), {}).get(name)
                if stat is None:
                    continue
                med, lo, hi = stat
                xs.append(i + (c - (len(configs) - 1) / 2) * width)
                meds.append(med)
                errs[0].append(med - lo)
                errs[1].append(hi - med)
            ax.bar(xs, meds, width, yerr=errs, capsize=3, label=config)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
        ax.set_title(f"{title} ({better} is better)", fontsize=10)
        if unit:
            ax.set_ylabel(unit)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(title="config")
    fig.suptitle("memory_workload: median of repetitions, bars min-max; "
                 f"tools_default = {note}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--tools_default", default="")
    args = parser.parse_args()

    summary = summarize(load(args.runs))
    if not summary:
        sys.exit("memory_mode_report: no runs in " + args.runs)
    configs = [c for c in ("stock", "ours")
               if any(k[0] == c for k in summary)]
    labels = ordered_labels(summary)
    print_table(summary, configs, labels)
    for config in configs:
        for label in labels:
            s = summary.get((config, label))
            if s:
                print(f"  {config}/{label}: malloc={s['malloc']} "
                      f"memtable={s['memtable']} jemalloc[{s['settings']}] "
                      f"runs={s['runs']}")
    summary_csv = os.path.join(args.out, "memory_summary.csv")
    png = os.path.join(args.out, "memory_mode.png")
    write_csv(summary_csv, summary, configs, labels)
    plot(png, summary, configs, labels, args.tools_default)
    print(f"memory_mode: wrote {args.runs}, {summary_csv}, {png}")


if __name__ == "__main__":
    main()

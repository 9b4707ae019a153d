import sys, csv, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = next(csv.reader([line]))
    label, r, name = parts[0], parts[1], parts[2]
    ns = float(parts[4])  # real_time
    rows[(label, name)].append((int(r), ns))
names = sorted({n for _, n in rows})
labels = sorted({l for l, _ in rows})
# per-key ns: batch from the name
def batch(n):
    p = n.split('/')
    return int(p[2]) if p[0].startswith('MultiGet') and p[2].isdigit() else 1
for n in names:
    out = [n]
    for l in labels:
        v = [x[1] / batch(n) for x in rows[(l, n)]]
        if v: out.append(f"{l}: {statistics.median(v):.1f} ns/key [{min(v):.1f}-{max(v):.1f}]")
    print("  ".join(out))
# ratio to floor, per run
for l in labels:
    for b in (8, 16, 32):
        rs = []
        for (r, ns) in rows[(l, f"MultiGet/ours_loaded/{b}/real_time")]:
            fl = [x for (rr, x) in rows[(l, f"MultiGet/one_read_floor/{b}/real_time")] if rr == r]
            if fl: rs.append(fl[0] / ns)
        if rs: print(f"{l} batch {b}: ours/floor rate {statistics.median(rs):.2f} [{min(rs):.2f}-{max(rs):.2f}]")

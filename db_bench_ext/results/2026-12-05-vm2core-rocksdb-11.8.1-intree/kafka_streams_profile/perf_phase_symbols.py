import re, sys, collections, datetime
# perf's sample times count seconds since boot; argv[-1]: the boot time,
# `date -d "$(uptime -s)" +%s` on the machine that recorded.
boot = float(sys.argv[-1])
want = sys.argv[3]
phases = []
for line in open(sys.argv[2]):
    m = re.match(r'timed: (.*), (OURS|DEFAULT), (\S+) - (\S+)', line)
    if m and '1,000,000' in m.group(1) and want in m.group(1):
        f = lambda s: datetime.datetime.fromisoformat(s.replace('Z','')[:26]).replace(tzinfo=datetime.timezone.utc).timestamp()
        phases.append((m.group(2), f(m.group(3)) - boot, f(m.group(4)) - boot))
for cfg, a, b in phases:
    bg = collections.Counter(); mk = collections.Counter()
    for line in open(sys.argv[1]):
        m = re.match(r'\s*(\S.*?)\s+(\d+)\s+([\d.]+):\s+(\S+)\s+(.*?)\s+\((.*)\)$', line)
        if not m: continue
        comm, tid, t, ip, sym, dso = m.groups(); t = float(t)
        if not a <= t <= b: continue
        if comm.startswith('cuckoo') or comm.startswith('rocksdb'): bg[(comm, sym[:70], dso.split('/')[-1][:20])] += 1
        elif comm == 'java' and 'kernel' in dso: mk[sym] += 1
    print(cfg, 'background top:'); [print('  ', x, k) for k, x in bg.most_common(14)]
    print(cfg, 'main kernel top:'); [print('  ', x, k) for k, x in mk.most_common(6)]

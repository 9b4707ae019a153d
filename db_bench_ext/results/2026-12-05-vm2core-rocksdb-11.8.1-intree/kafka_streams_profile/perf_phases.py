import re, sys, collections, datetime
# perf's sample times count seconds since boot; argv[-1]: the boot time,
# `date -d "$(uptime -s)" +%s` on the machine that recorded.
boot = float(sys.argv[-1])
phases = []
for line in open(sys.argv[2]):
    m = re.match(r'timed: (.*), (OURS|DEFAULT), (\S+) - (\S+)', line)
    if m and '1,000,000' in m.group(1):
        f = lambda s: datetime.datetime.fromisoformat(s.replace('Z','')[:26]).replace(tzinfo=datetime.timezone.utc).timestamp()
        phases.append((m.group(1), m.group(2), f(m.group(3)) - boot, f(m.group(4)) - boot))
samples = []
main_tid = None
for line in open(sys.argv[1]):
    m = re.match(r'\s*(\S.*?)\s+(\d+)\s+([\d.]+):\s+(\S+)\s+(.*?)\s+\((.*)\)$', line)
    if not m: continue
    comm, tid, t, ip, sym, dso = m.groups()
    samples.append((comm, int(tid), float(t), sym, dso))
def kind(comm, tid, sym, dso):
    if comm == 'java':
        who = 'main'
    elif comm.startswith('cuckoo') or comm.startswith('rocksdb'):
        who = 'rocksdb background'
    else:
        who = 'JVM (' + comm.split()[0] + ')'
    if 'librocksdbjni' in dso:
        if 'rocksdb_cuckoo' in sym: what = 'our code'
        elif sym.startswith('Java_org_rocksdb') or 'JniUtil' in sym or 'Jni' in sym: what = 'JNI glue'
        else: what = 'RocksDB'
    elif 'perf-' in dso: what = 'Java (JIT)'
    elif 'libjvm' in dso: what = 'JVM'
    elif 'kernel' in dso: what = 'kernel'
    elif 'libc' in dso: what = 'libc'
    else: what = dso.split('/')[-1]
    return who, what
for (name, cfg, a, b) in phases:
    c = collections.Counter(); syms = collections.Counter(); n = 0
    for comm, tid, t, sym, dso in samples:
        if a <= t <= b:
            k = kind(comm, tid, sym, dso); c[k] += 1; n += 1
            if k[0] == 'main' and 'librocksdbjni' in dso: syms[sym] += 1
    print(f'{name} {cfg}: {n} samples in {b-a:.1f} s (499 Hz per busy thread)')
    for k, x in c.most_common(14): print(f'   {x/(b-a)/4.99:6.1f}% of a core  {k[0]:>20} / {k[1]}')
    print('   top librocksdbjni symbols on the main thread:')
    for s, x in syms.most_common(8): print(f'      {x:5d} {s[:110]}')

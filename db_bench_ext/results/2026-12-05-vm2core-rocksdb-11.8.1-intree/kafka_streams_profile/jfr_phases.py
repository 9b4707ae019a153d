import json, re, sys, collections, datetime
ev = json.load(open(sys.argv[1]))['recording']['events']
phases = []
for line in open(sys.argv[2]):
    m = re.match(r'timed: (.*), (OURS|DEFAULT), (\S+) - (\S+)', line)
    if m and '1,000,000' in m.group(1):
        f = lambda s: datetime.datetime.fromisoformat(s.replace('Z','+00:00')[:26]+'+00:00').timestamp()
        phases.append((m.group(1), m.group(2), f(m.group(3)), f(m.group(4))))
def cat(frames):
    # first frame whose class falls in a category, from the top of the stack
    for fr in frames:
        cls = fr['method']['type']['name']; name = fr['method']['name']
        if cls.startswith('org.rocksdb.'):
            return 'RocksDB call (JNI, native)'
        if 'serialization' in cls or 'Serde' in cls or 'Serializer' in cls or 'Deserializer' in cls:
            return 'serialization'
        if 'ThreadCache' in cls or 'NamedCache' in cls or 'LRUCacheEntry' in cls or 'CachingKeyValueStore' in cls:
            return 'record cache'
        if cls.startswith('org.apache.kafka.streams.state.internals'):
            return 'store layers (metered, changelog, timestamped)'
        if cls.startswith('org.apache.kafka.streams.TopologyTestDriver') or cls.startswith('org.apache.kafka.streams.TestInputTopic') or cls.startswith('org.apache.kafka.clients') or 'MockProducer' in cls or 'RecordCollector' in cls:
            return 'test driver, records, producer'
        if cls.startswith('org.apache.kafka.streams.processor') or cls.startswith('org.apache.kafka.streams.kstream'):
            return 'processing (task, processors, join)'
        if cls.startswith('org.apache.kafka'):
            return 'other Kafka'
        if cls.startswith('dev.rocksdbcuckoo'):
            return 'benchmark harness'
    return 'JDK / other'
for (name, cfg, a, b) in phases:
    c = collections.Counter(); n = 0
    for e in ev:
        v = e['values']
        t = datetime.datetime.fromisoformat(v['startTime'].replace('Z','+00:00')).timestamp()
        if not (a <= t <= b): continue
        th = v['sampledThread']['javaName'] if v.get('sampledThread') else ''
        if th != 'main': continue
        fr = v['stackTrace']['frames'] if v.get('stackTrace') else []
        c[cat(fr)] += 1; n += 1
    print(f'{name} {cfg}: {n} main-thread samples over {b-a:.1f} s')
    for k, x in c.most_common():
        print(f'   {100*x/n:5.1f}%  {k}')
print('--- top frames and the frame 3 below, per phase')
for (name, cfg, a, b) in phases:
    if len(sys.argv) > 3 and sys.argv[3] not in name: continue
    c = collections.Counter()
    for e in ev:
        v = e['values']
        t = datetime.datetime.fromisoformat(v['startTime'].replace('Z','+00:00')).timestamp()
        if not (a <= t <= b) or not v.get('sampledThread') or v['sampledThread']['javaName'] != 'main': continue
        fr = v['stackTrace']['frames']
        c[(e['type'], fr[0]['method']['type']['name'] + '.' + fr[0]['method']['name'], fr[min(3,len(fr)-1)]['method']['type']['name']+'.'+fr[min(3,len(fr)-1)]['method']['name'])] += 1
    print(name, cfg)
    for k, x in c.most_common(12): print('  ', x, k)

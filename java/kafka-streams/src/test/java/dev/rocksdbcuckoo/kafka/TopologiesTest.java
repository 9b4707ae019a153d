package dev.rocksdbcuckoo.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DSL topologies over real RocksDB stores, each run once under
 * {@link CuckooRocksDBConfigSetter} and once under Kafka Streams' default
 * store options: outputs and queries must be exactly equal (and equal to a
 * model of the topology), and the stores' files must show which table and
 * memtable each run used.
 *
 * <p>Each run writes more than a memtable (16 MiB in Kafka Streams' stores)
 * to its store, so RocksDB flushes mid-run and the later reads and queries
 * merge memtables with SST files. Keys or values are padded for that.
 * TopologyTestDriver deletes its state directory when it closes, so the
 * files are looked at before it closes. The stores read in the processing
 * path are uncached, so that reads reach RocksDB rather than the record
 * cache.
 */
class TopologiesTest {
  private static final Serde<String> STRING = Serdes.String();
  private static final Serde<Long> LONG = Serdes.Long();

  @TempDir Path dir;

  private static String key(final String prefix, final int n) {
    return String.format("%s%05d", prefix, n);
  }

  /** {@code s} made {@code length} characters long, to fill memtables sooner. */
  private static String pad(final String s, final int length) {
    return s + "|" + "x".repeat(Math.max(0, length - s.length() - 1));
  }

  private <T> Map<StoreConfig, T> runBoth(final Function<StoreConfig, T> run) {
    final Map<StoreConfig, T> results = new EnumMap<>(StoreConfig.class);
    for (final StoreConfig config : StoreConfig.values()) {
      results.put(config, run.apply(config));
    }
    return results;
  }

  private Path stateDir(final StoreConfig config) {
    return dir.resolve(config.name());
  }

  private static <K, V> Map<K, V> lastValues(final List<TestRecord<K, V>> records) {
    final Map<K, V> last = new TreeMap<>();
    records.forEach(r -> last.put(r.key(), r.value()));
    return last;
  }

  // --- groupByKey().count() -------------------------------------------------

  private static final int COUNT_KEYS = 5_000;
  private static final int COUNT_RECORDS = 40_000;
  // 40,000 updates of ~550-byte entries: ~22 MB, more than a memtable.
  private static final int COUNT_KEY_LENGTH = 500;

  private static String countKey(final SplittableRandom random) {
    return pad(key("k", random.nextInt(COUNT_KEYS)), COUNT_KEY_LENGTH);
  }

  private static Topology countTopology() {
    final StreamsBuilder builder = new StreamsBuilder();
    builder.stream("events", Consumed.with(STRING, STRING))
        .groupByKey()
        .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
            .withCachingDisabled())
        .toStream()
        .to("counts-out", Produced.with(STRING, LONG));
    return builder.build();
  }

  private List<TestRecord<String, Long>> runCount(final StoreConfig config) {
    final SplittableRandom random = new SplittableRandom(1);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(countTopology(), config.props("count", stateDir(config)))) {
      final TestInputTopic<String, String> in =
          driver.createInputTopic("events", STRING.serializer(), STRING.serializer());
      final TestOutputTopic<String, Long> counts =
          driver.createOutputTopic("counts-out", STRING.deserializer(), LONG.deserializer());
      for (int i = 0; i < COUNT_RECORDS; i++) {
        in.pipeInput(countKey(random), "x", i);
      }
      config.assertStoreRan(stateDir(config), "counts");
      return counts.readRecordsToList();
    }
  }

  @Test
  void countOverManyKeys() {
    final Map<StoreConfig, List<TestRecord<String, Long>>> out = runBoth(this::runCount);

    final Map<String, Long> expected = new TreeMap<>();
    final SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < COUNT_RECORDS; i++) {
      expected.merge(countKey(random), 1L, Long::sum);
    }
    assertEquals(out.get(StoreConfig.DEFAULT), out.get(StoreConfig.CUCKOO));
    // Uncached: one output per input record, the key's count so far.
    assertEquals(COUNT_RECORDS, out.get(StoreConfig.CUCKOO).size());
    assertEquals(expected, lastValues(out.get(StoreConfig.CUCKOO)));
  }

  // --- KStream.join(KTable) -------------------------------------------------

  private static final int USERS = 20_000;
  private static final int CLICKS = 20_000;
  // 20,000 users of ~1 KB: ~21 MB, more than a memtable.
  private static final int REGION_LENGTH = 1_000;

  private static String region(final int u) {
    return pad("region-" + u % 7, REGION_LENGTH);
  }

  private static Topology joinTopology() {
    final StreamsBuilder builder = new StreamsBuilder();
    final KTable<String, String> users =
        builder.table(
            "users",
            Consumed.with(STRING, STRING),
            Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("users-store")
                .withCachingDisabled());
    builder.stream("clicks", Consumed.with(STRING, STRING))
        .join(users, (click, region) -> click + "@" + region)
        .to("enriched", Produced.with(STRING, STRING));
    return builder.build();
  }

  /** Loads the users table, then streams clicks, with table updates and deletes among them. */
  private List<TestRecord<String, String>> runJoin(final StoreConfig config) {
    final SplittableRandom random = new SplittableRandom(2);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(joinTopology(), config.props("join", stateDir(config)))) {
      final TestInputTopic<String, String> users =
          driver.createInputTopic("users", STRING.serializer(), STRING.serializer());
      final TestInputTopic<String, String> clicks =
          driver.createInputTopic("clicks", STRING.serializer(), STRING.serializer());
      final TestOutputTopic<String, String> enriched =
          driver.createOutputTopic("enriched", STRING.deserializer(), STRING.deserializer());
      for (int u = 0; u < USERS; u++) {
        users.pipeInput(key("u", u), region(u), u);
      }
      long time = USERS;
      for (int c = 0; c < CLICKS; c++) {
        if (c % 20 == 0) {
          final int u = random.nextInt(USERS);
          // A tombstone deletes the user; the other half move to a new region.
          users.pipeInput(key("u", u), u % 2 == 0 ? null : "moved-" + c, time++);
        }
        // A quarter of the clicks name no user at all.
        clicks.pipeInput(key("u", random.nextInt(USERS * 4 / 3)), "click-" + c, time++);
      }
      config.assertStoreRan(stateDir(config), "users-store");
      return enriched.readRecordsToList();
    }
  }

  @Test
  void streamTableJoin() {
    final Map<StoreConfig, List<TestRecord<String, String>>> out = runBoth(this::runJoin);

    final List<KeyValue<String, String>> expected = new ArrayList<>();
    final Map<String, String> table = new TreeMap<>();
    for (int u = 0; u < USERS; u++) {
      table.put(key("u", u), region(u));
    }
    final SplittableRandom random = new SplittableRandom(2);
    for (int c = 0; c < CLICKS; c++) {
      if (c % 20 == 0) {
        final int u = random.nextInt(USERS);
        if (u % 2 == 0) {
          table.remove(key("u", u));
        } else {
          table.put(key("u", u), "moved-" + c);
        }
      }
      final String user = key("u", random.nextInt(USERS * 4 / 3));
      if (table.containsKey(user)) {
        expected.add(KeyValue.pair(user, "click-" + c + "@" + table.get(user)));
      }
    }

    assertEquals(out.get(StoreConfig.DEFAULT), out.get(StoreConfig.CUCKOO));
    final List<KeyValue<String, String>> joined = new ArrayList<>();
    out.get(StoreConfig.CUCKOO).forEach(r -> joined.add(KeyValue.pair(r.key(), r.value())));
    assertEquals(expected, joined);
  }

  // --- hopping-window aggregation -------------------------------------------

  private static final int SENSORS = 500;
  private static final int READINGS = 25_000;
  private static final long READING_INTERVAL_MS = 10;
  private static final Duration WINDOW = Duration.ofSeconds(10);
  private static final Duration ADVANCE = Duration.ofSeconds(5);
  // Longer than the run (250 s of readings), so that every window stays
  // queryable; the store is then two segments (two DBs) of Kafka Streams'
  // default interval, max(retention / 2, 1 min).
  private static final Duration RETENTION = Duration.ofMinutes(5);
  private static final long SEGMENT_INTERVAL_MS = RETENTION.toMillis() / 2;
  // Two windows per reading, entries of ~750 bytes: the first segment gets
  // ~22 MB, more than a memtable.
  private static final int SENSOR_LENGTH = 700;

  private static Topology windowTopology() {
    final StreamsBuilder builder = new StreamsBuilder();
    builder.stream("readings", Consumed.with(STRING, LONG))
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeWithNoGrace(WINDOW).advanceBy(ADVANCE))
        .aggregate(
            () -> 0L,
            (sensor, reading, sum) -> sum + reading,
            // Uncached, so that the queries below are answered by RocksDB.
            Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("sums")
                .withValueSerde(LONG)
                .withRetention(RETENTION)
                .withCachingDisabled())
        .toStream((window, sum) -> window.key() + "@" + window.window().start())
        .to("sums-out", Produced.with(STRING, LONG));
    return builder.build();
  }

  private static long reading(final int i) {
    return i % 97;
  }

  private static String sensor(final int s) {
    return pad(key("s", s), SENSOR_LENGTH);
  }

  private static String sensor(final SplittableRandom random) {
    return sensor(random.nextInt(SENSORS));
  }

  /** Outputs and window-store queries of a run. */
  private record WindowRun(List<TestRecord<String, Long>> out, Map<String, List<String>> queries) {}

  private WindowRun runWindows(final StoreConfig config) {
    final SplittableRandom random = new SplittableRandom(3);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(windowTopology(), config.props("windows", stateDir(config)))) {
      final TestInputTopic<String, Long> in =
          driver.createInputTopic("readings", STRING.serializer(), LONG.serializer());
      final TestOutputTopic<String, Long> sums =
          driver.createOutputTopic("sums-out", STRING.deserializer(), LONG.deserializer());
      for (int i = 0; i < READINGS; i++) {
        in.pipeInput(sensor(random), reading(i), i * READING_INTERVAL_MS);
      }
      config.assertStoreRan(stateDir(config), "sums");
      return new WindowRun(sums.readRecordsToList(), queryWindows(driver.getWindowStore("sums")));
    }
  }

  private static Map<String, List<String>> queryWindows(final WindowStore<String, Long> store) {
    final long end = READINGS * READING_INTERVAL_MS;
    final Map<String, List<String>> queries = new LinkedHashMap<>();
    for (int s = 0; s < SENSORS; s += 50) {
      final String sensor = sensor(s);
      queries.put("fetch " + s, windows(store.fetch(sensor, 0, end)));
      queries.put("backwardFetch " + s, windows(store.backwardFetch(sensor, 30_000, 150_000)));
    }
    queries.put("fetch key range", windowed(store.fetch(sensor(100), sensor(140), 40_000, 90_000)));
    queries.put("backwardFetch key range",
        windowed(store.backwardFetch(sensor(100), sensor(140), 40_000, 90_000)));
    queries.put("fetchAll", windowed(store.fetchAll(60_000, 120_000)));
    queries.put("all", windowed(store.all()));
    queries.put("backwardAll", windowed(store.backwardAll()));
    return queries;
  }

  private static List<String> windows(final WindowStoreIterator<Long> iterator) {
    final List<String> rows = new ArrayList<>();
    try (iterator) {
      iterator.forEachRemaining(kv -> rows.add(kv.key + "=" + kv.value));
    }
    return rows;
  }

  private static List<String> windowed(final KeyValueIterator<Windowed<String>, Long> iterator) {
    final List<String> rows = new ArrayList<>();
    try (iterator) {
      iterator.forEachRemaining(
          kv -> rows.add(kv.key.key() + "@" + kv.key.window().start() + "=" + kv.value));
    }
    return rows;
  }

  @Test
  void hoppingWindowAggregationAndWindowQueries() {
    final Map<StoreConfig, WindowRun> runs = runBoth(this::runWindows);

    // The model: each reading adds to the (up to) two windows that hold it.
    // all() goes segment by segment, and by sensor, then window start, in each.
    final Map<Long, TreeMap<String, TreeMap<Long, Long>>> model = new TreeMap<>();
    final SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < READINGS; i++) {
      final String sensor = sensor(random);
      final long time = i * READING_INTERVAL_MS;
      for (long start = Math.max(0, time - WINDOW.toMillis() + ADVANCE.toMillis())
              / ADVANCE.toMillis() * ADVANCE.toMillis();
          start <= time;
          start += ADVANCE.toMillis()) {
        model.computeIfAbsent(start / SEGMENT_INTERVAL_MS, segment -> new TreeMap<>())
            .computeIfAbsent(sensor, s -> new TreeMap<>())
            .merge(start, reading(i), Long::sum);
      }
    }
    final Map<String, Long> expected = new TreeMap<>();
    final List<String> all = new ArrayList<>();
    model.values().forEach(segment -> segment.forEach((sensor, windows) ->
        windows.forEach((start, sum) -> {
          expected.put(sensor + "@" + start, sum);
          all.add(sensor + "@" + start + "=" + sum);
        })));
    assertEquals(2, model.size());

    final WindowRun ours = runs.get(StoreConfig.CUCKOO);
    assertEquals(runs.get(StoreConfig.DEFAULT), ours);
    assertEquals(expected, lastValues(ours.out()));
    assertEquals(all, ours.queries().get("all"));
    ours.queries().forEach((query, rows) -> assertTrue(!rows.isEmpty(), query + " found nothing"));
  }

  // --- interactive queries on a key-value store ----------------------------

  private static final int KV_KEYS = 20_000;
  // 20,000 values of ~1 KB: ~21 MB, more than a memtable.
  private static final int KV_VALUE_LENGTH = 1_000;

  private static String kvValue(final int k) {
    return pad("v" + k, KV_VALUE_LENGTH);
  }

  private static Topology kvTopology() {
    final StreamsBuilder builder = new StreamsBuilder();
    builder.table(
        "kv",
        Consumed.with(STRING, STRING),
        Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("kv-store")
            .withCachingDisabled());
    return builder.build();
  }

  /**
   * Writes every key (most of them reach an SST), then updates and deletes
   * some (those stay in the memtable), then queries: answers merge both.
   */
  private Map<String, List<String>> runQueries(final StoreConfig config) {
    try (TopologyTestDriver driver =
        new TopologyTestDriver(kvTopology(), config.props("kv", stateDir(config)))) {
      final TestInputTopic<String, String> in =
          driver.createInputTopic("kv", STRING.serializer(), STRING.serializer());
      for (int k = 0; k < KV_KEYS; k++) {
        in.pipeInput(key("k", k), kvValue(k), k);
      }
      applyKvChanges((k, v) -> in.pipeInput(k, v, KV_KEYS));
      config.assertStoreRan(stateDir(config), "kv-store");
      return queryKeyValues(driver.getKeyValueStore("kv-store"));
    }
  }

  /** Updates every 7th key and deletes every 11th (a tombstone is a null value). */
  private static void applyKvChanges(final BiConsumer<String, String> put) {
    for (int k = 0; k < KV_KEYS; k++) {
      if (k % 11 == 0) {
        put.accept(key("k", k), null);
      } else if (k % 7 == 0) {
        put.accept(key("k", k), "w" + k);
      }
    }
  }

  private static Map<String, List<String>> queryKeyValues(
      final ReadOnlyKeyValueStore<String, String> store) {
    final Map<String, List<String>> queries = new LinkedHashMap<>();
    final List<String> gets = new ArrayList<>();
    // Past the last key too: misses must agree as well.
    for (int k = 0; k < KV_KEYS + 100; k++) {
      gets.add(key("k", k) + "=" + store.get(key("k", k)));
    }
    queries.put("get", gets);
    queries.put("range", rows(store.range(key("k", 1000), key("k", 1999))));
    queries.put("reverseRange", rows(store.reverseRange(key("k", 1000), key("k", 1999))));
    queries.put("range from start", rows(store.range(null, key("k", 300))));
    queries.put("range to end", rows(store.range(key("k", 19_700), null)));
    queries.put("all", rows(store.all()));
    queries.put("reverseAll", rows(store.reverseAll()));
    queries.put("prefixScan", rows(store.prefixScan("k012", new StringSerializer())));
    return queries;
  }

  private static List<String> rows(final KeyValueIterator<String, String> iterator) {
    final List<String> rows = new ArrayList<>();
    try (iterator) {
      iterator.forEachRemaining(kv -> rows.add(kv.key + "=" + kv.value));
    }
    return rows;
  }

  @Test
  void interactiveQueries() {
    final Map<StoreConfig, Map<String, List<String>>> runs = runBoth(this::runQueries);

    final TreeMap<String, String> model = new TreeMap<>();
    for (int k = 0; k < KV_KEYS; k++) {
      model.put(key("k", k), kvValue(k));
    }
    applyKvChanges((k, v) -> {
      if (v == null) {
        model.remove(k);
      } else {
        model.put(k, v);
      }
    });
    final Map<String, List<String>> expected = new LinkedHashMap<>();
    final List<String> gets = new ArrayList<>();
    for (int k = 0; k < KV_KEYS + 100; k++) {
      gets.add(key("k", k) + "=" + model.get(key("k", k)));
    }
    expected.put("get", gets);
    expected.put("range", modelRows(model.subMap(key("k", 1000), true, key("k", 1999), true)));
    expected.put("reverseRange",
        modelRows(model.subMap(key("k", 1000), true, key("k", 1999), true).descendingMap()));
    expected.put("range from start", modelRows(model.headMap(key("k", 300), true)));
    expected.put("range to end", modelRows(model.tailMap(key("k", 19_700), true)));
    expected.put("all", modelRows(model));
    expected.put("reverseAll", modelRows(model.descendingMap()));
    expected.put("prefixScan", modelRows(model.subMap("k012", "k013")));

    assertEquals(runs.get(StoreConfig.DEFAULT), runs.get(StoreConfig.CUCKOO));
    assertEquals(expected, runs.get(StoreConfig.CUCKOO));
  }

  private static List<String> modelRows(final Map<String, String> map) {
    final List<String> rows = new ArrayList<>();
    map.forEach((k, v) -> rows.add(k + "=" + v));
    return rows;
  }
}

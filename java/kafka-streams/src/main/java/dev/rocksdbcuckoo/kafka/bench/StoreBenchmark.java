package dev.rocksdbcuckoo.kafka.bench;

import dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStore;
import org.rocksdb.RocksDB;

/**
 * Kafka Streams records/s with {@link CuckooRocksDBConfigSetter} against the
 * default RocksDB store options, in one run: the two alternate (which goes
 * first flips each repetition), and each row reports the median and range of
 * its repetitions. A round at a tenth of the sizes warms the JVM up first.
 *
 * <p>Rows: a stream-table join whose table is loaded first (the load is a
 * row of its own) and then looked up by keys spread over the whole table; a
 * {@code count} over many keys; a tumbling-window {@code count}. Stores keep
 * Kafka Streams' defaults (record cache of 10 MB included) except that
 * changelogs are off, since the driver would keep every changelog record in
 * memory.
 *
 * <p>It drives the topologies with TopologyTestDriver: one thread, no broker,
 * and a commit after every record (which writes the task's offsets into each
 * store). So it measures the store path plus the driver's per-record cost,
 * which is the same for both configurations, and says nothing about
 * networking or parallelism.
 *
 * <pre>
 * java -cp ... dev.rocksdbcuckoo.kafka.bench.StoreBenchmark [--table-keys=N] [--lookups=N]
 *     [--count-keys=N] [--count-records=N] [--window-keys=N] [--window-records=N]
 *     [--value-bytes=N] [--reps=N] [--rows=join,count,window] [--dir=PATH]
 * </pre>
 */
public final class StoreBenchmark {
  private static final Serde<byte[]> BYTES = Serdes.ByteArray();
  private static final long WARM_UP_DIVISOR = 10;

  private enum Config {
    OURS,
    DEFAULT
  }

  private final Map<String, Long> sizes = new LinkedHashMap<>();
  private final int reps;
  private final List<String> rows;
  private final Path baseDir;
  // Timings by row, then configuration: records/s of each repetition.
  private final Map<String, Map<Config, List<Double>>> results = new LinkedHashMap<>();
  // What each run computed, which must not depend on the configuration.
  private final Map<String, Map<Config, Long>> checks = new LinkedHashMap<>();
  // During the warm-up round: sizes divided by WARM_UP_DIVISOR, nothing recorded.
  private boolean warmingUp;

  private StoreBenchmark(final Map<String, String> args) {
    sizes.put("table-keys", 1_000_000L);
    sizes.put("lookups", 1_000_000L);
    sizes.put("count-keys", 1_000_000L);
    sizes.put("count-records", 2_000_000L);
    sizes.put("window-keys", 100_000L);
    sizes.put("window-records", 1_000_000L);
    sizes.put("value-bytes", 100L);
    for (final String name : sizes.keySet()) {
      if (args.containsKey(name)) {
        sizes.put(name, Long.parseLong(args.remove(name).replace("_", "")));
      }
    }
    reps = Integer.parseInt(args.getOrDefault("reps", "3"));
    args.remove("reps");
    rows = Arrays.asList(args.getOrDefault("rows", "join,count,window").split(","));
    args.remove("rows");
    baseDir = Path.of(args.getOrDefault("dir", System.getProperty("java.io.tmpdir")));
    args.remove("dir");
    if (!args.isEmpty()) {
      throw new IllegalArgumentException("unknown arguments: " + args.keySet());
    }
  }

  public static void main(final String[] argv) throws IOException {
    final Map<String, String> args = new LinkedHashMap<>();
    for (final String arg : argv) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("expected --name=value, got " + arg);
      }
      args.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    new StoreBenchmark(args).run();
  }

  private long size(final String name) {
    final long size = sizes.get(name);
    return warmingUp && !name.equals("value-bytes") ? Math.max(1, size / WARM_UP_DIVISOR) : size;
  }

  private void run() throws IOException {
    // rocksdbVersion() is known once the library is loaded.
    RocksDB.loadLibrary();
    System.out.printf(
        "Kafka Streams stores: CuckooRocksDBConfigSetter (ours) vs default options%n");
    System.out.printf("driver: TopologyTestDriver (single thread, no broker, commit per record)%n");
    System.out.printf("RocksDB %s, Java %s, %d cores%n", RocksDB.rocksdbVersion(),
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
    System.out.printf("sizes: %s, %d repetitions, alternating, after a warm-up round at 1/%d"
        + " of the sizes%n%n", sizes, reps, WARM_UP_DIVISOR);
    warmingUp = true;
    for (final String row : rows) {
      for (final Config config : Config.values()) {
        runRow(row.trim(), config, -1);
      }
    }
    warmingUp = false;
    for (int rep = 0; rep < reps; rep++) {
      final List<Config> order = rep % 2 == 0
          ? List.of(Config.OURS, Config.DEFAULT)
          : List.of(Config.DEFAULT, Config.OURS);
      for (final String row : rows) {
        for (final Config config : order) {
          runRow(row.trim(), config, rep);
        }
      }
    }
    for (final Map.Entry<String, Map<Config, Long>> check : checks.entrySet()) {
      if (!check.getValue().get(Config.OURS).equals(check.getValue().get(Config.DEFAULT))) {
        throw new IllegalStateException("results differ: " + check);
      }
    }
    System.out.println();
    System.out.print(table());
  }

  private void runRow(final String row, final Config config, final int rep) throws IOException {
    final Path stateDir = Files.createTempDirectory(baseDir, "kstreams-bench-");
    try {
      switch (row) {
        case "join" -> join(config, stateDir);
        case "count" -> count(config, stateDir);
        case "window" -> window(config, stateDir);
        default -> throw new IllegalArgumentException("unknown row " + row);
      }
    } finally {
      deleteTree(stateDir);
    }
    System.err.printf("done: %s, %s, %s%n", row, config,
        rep < 0 ? "warm-up" : "repetition " + (rep + 1));
  }

  private Properties props(final Config config, final String app, final Path stateDir) {
    final Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    if (config == Config.OURS) {
      props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, CuckooRocksDBConfigSetter.class);
    }
    return props;
  }

  /** A 12-byte key: "k" and 11 digits. */
  // Written digit by digit: String.format costs about a microsecond, a
  // harness cost that would blur the stores' difference.
  private static byte[] key(final long n) {
    final byte[] key = new byte[12];
    key[0] = 'k';
    long rest = n;
    for (int i = 11; i >= 1; i--) {
      key[i] = (byte) ('0' + rest % 10);
      rest /= 10;
    }
    return key;
  }

  private byte[] value(final long n) {
    final byte[] value = new byte[(int) size("value-bytes")];
    ByteBuffer.wrap(value).putLong(0, n);
    return value;
  }

  // Prints each timed phase's wall-clock bounds, to cut a profile of the
  // whole process (a JFR recording, perf) into the phases.
  private void record(final String row, final Config config, final long records, final long nanos) {
    final Instant end = Instant.now();
    System.err.printf("timed: %s, %s, %s - %s%n", row, config, end.minusNanos(nanos), end);
    if (warmingUp) {
      return;
    }
    results.computeIfAbsent(row, r -> new LinkedHashMap<>())
        .computeIfAbsent(config, c -> new ArrayList<>())
        .add(records * 1e9 / nanos);
  }

  private void check(final String what, final Config config, final long value) {
    if (warmingUp) {
      return;
    }
    final Long previous =
        checks.computeIfAbsent(what, w -> new LinkedHashMap<>()).put(config, value);
    if (previous != null && previous != value) {
      throw new IllegalStateException(
          what + " changed between repetitions: " + previous + ", " + value);
    }
  }

  private void join(final Config config, final Path stateDir) {
    final long tableKeys = size("table-keys");
    final long lookups = size("lookups");
    final long[] joined = {0};
    final StreamsBuilder builder = new StreamsBuilder();
    final KTable<byte[], byte[]> table = builder.table("table", Consumed.with(BYTES, BYTES),
        Materialized.<byte[], byte[], KeyValueStore<Bytes, byte[]>>as("table-store")
            .withLoggingDisabled());
    builder.stream("lookups", Consumed.with(BYTES, BYTES))
        .join(table, (lookup, row) -> row)
        .foreach((k, v) -> joined[0]++);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(builder.build(), props(config, "bench-join", stateDir))) {
      final TestInputTopic<byte[], byte[]> tableIn =
          driver.createInputTopic("table", BYTES.serializer(), BYTES.serializer());
      final TestInputTopic<byte[], byte[]> lookupIn =
          driver.createInputTopic("lookups", BYTES.serializer(), BYTES.serializer());
      long start = System.nanoTime();
      for (long n = 0; n < tableKeys; n++) {
        tableIn.pipeInput(key(n), value(n), n);
      }
      record(String.format("join: load table, %,d keys", tableKeys), config, tableKeys,
          System.nanoTime() - start);

      final SplittableRandom random = new SplittableRandom(42);
      final byte[] small = new byte[8];
      start = System.nanoTime();
      for (long n = 0; n < lookups; n++) {
        lookupIn.pipeInput(key(random.nextLong(tableKeys)), small, tableKeys + n);
      }
      record(String.format("join: %,d lookups", lookups), config, lookups,
          System.nanoTime() - start);

      // The same table through interactive queries: the store's get path
      // (metered, record cache, RocksDB) without the per-record commit the
      // driver makes for stream records.
      final KeyValueStore<byte[], ValueAndTimestamp<byte[]>> store =
          driver.getTimestampedKeyValueStore("table-store");
      long found = 0;
      start = System.nanoTime();
      for (long n = 0; n < lookups; n++) {
        if (store.get(key(random.nextLong(tableKeys))) != null) {
          found++;
        }
      }
      record(String.format("join table: %,d interactive-query gets", lookups), config, lookups,
          System.nanoTime() - start);
      check("join table: gets found", config, found);
    }
    check("join: joined records", config, joined[0]);
  }

  private void count(final Config config, final Path stateDir) {
    final long keys = size("count-keys");
    final long records = size("count-records");
    final StreamsBuilder builder = new StreamsBuilder();
    builder.stream("events", Consumed.with(BYTES, BYTES))
        .groupByKey()
        .count(Materialized.<byte[], Long, KeyValueStore<Bytes, byte[]>>as("counts")
            .withLoggingDisabled());
    try (TopologyTestDriver driver =
        new TopologyTestDriver(builder.build(), props(config, "bench-count", stateDir))) {
      final TestInputTopic<byte[], byte[]> in =
          driver.createInputTopic("events", BYTES.serializer(), BYTES.serializer());
      final SplittableRandom random = new SplittableRandom(43);
      final long start = System.nanoTime();
      for (long n = 0; n < records; n++) {
        final long k = random.nextLong(keys);
        in.pipeInput(key(k), value(k), n);
      }
      record(String.format("count: %,d records, %,d keys", records, keys), config, records,
          System.nanoTime() - start);
      long total = 0;
      try (KeyValueIterator<byte[], ValueAndTimestamp<Long>> all =
          driver.<byte[], Long>getTimestampedKeyValueStore("counts").all()) {
        while (all.hasNext()) {
          total += all.next().value.value();
        }
      }
      check("count: sum of counts", config, total);
    }
  }

  private void window(final Config config, final Path stateDir) {
    final long keys = size("window-keys");
    final long records = size("window-records");
    final StreamsBuilder builder = new StreamsBuilder();
    builder.stream("events", Consumed.with(BYTES, BYTES))
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1)))
        .count(Materialized.<byte[], Long, WindowStore<Bytes, byte[]>>as("window-counts")
            .withLoggingDisabled());
    try (TopologyTestDriver driver =
        new TopologyTestDriver(builder.build(), props(config, "bench-window", stateDir))) {
      final TestInputTopic<byte[], byte[]> in =
          driver.createInputTopic("events", BYTES.serializer(), BYTES.serializer());
      final SplittableRandom random = new SplittableRandom(44);
      final long start = System.nanoTime();
      // One record per millisecond: a window of one minute takes 60,000.
      for (long n = 0; n < records; n++) {
        final long k = random.nextLong(keys);
        in.pipeInput(key(k), value(k), n);
      }
      record(String.format("window: %,d records, %,d keys, 1 min tumbling", records, keys),
          config, records, System.nanoTime() - start);
      long total = 0;
      try (KeyValueIterator<Windowed<byte[]>, ValueAndTimestamp<Long>> all =
          driver.<byte[], Long>getTimestampedWindowStore("window-counts").all()) {
        while (all.hasNext()) {
          total += all.next().value.value();
        }
      }
      check("window: sum of counts", config, total);
    }
  }

  private String table() {
    final StringBuilder out = new StringBuilder();
    final String format = "%-56s  %-30s  %-30s  %s%n";
    out.append(String.format(format, "row (records/s)", "ours median [min-max]",
        "default median [min-max]", "ratio"));
    results.forEach((row, byConfig) -> {
      final List<Double> ours = byConfig.get(Config.OURS);
      final List<Double> theirs = byConfig.get(Config.DEFAULT);
      out.append(String.format(format, row, summary(ours), summary(theirs),
          String.format(Locale.ROOT, "%.2fx", median(ours) / median(theirs))));
    });
    return out.toString();
  }

  private static double median(final List<Double> values) {
    final double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    final int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private static String summary(final List<Double> values) {
    final double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    final double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return String.format(Locale.ROOT, "%,.0f [%,.0f-%,.0f]", median(values), min, max);
  }

  private static void deleteTree(final Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (final Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (final IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

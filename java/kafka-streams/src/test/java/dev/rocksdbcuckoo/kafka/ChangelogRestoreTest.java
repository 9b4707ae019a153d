package dev.rocksdbcuckoo.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store rebuilt from its changelog, under each store configuration.
 *
 * <p>TopologyTestDriver never restores a store from its changelog (it has no
 * restore consumer, and it deletes its state directory when it closes, so a
 * second driver always starts empty), but it does capture what a store
 * writes to its changelog topic. So the test runs a counting topology in the
 * driver, takes the changelog records its store wrote, and feeds them to a
 * new, empty store of the same kind through the restore callback that store
 * registers with its context, in batches, as Kafka Streams' changelog reader
 * does: that is {@code RocksDBStore.restoreBatch}, which writes them to
 * RocksDB in write batches. What is exercised is the store's restore path,
 * not the changelog reader's consumer handling.
 */
class ChangelogRestoreTest {
  private static final Serde<String> STRING = Serdes.String();
  private static final Serde<Long> LONG = Serdes.Long();
  private static final String APP = "restore";
  private static final String STORE = "counts";
  private static final String CHANGELOG = APP + "-" + STORE + "-changelog";
  private static final int KEYS = 5_000;
  private static final int RECORDS = 20_000;
  private static final int RESTORE_BATCH = 1_000;

  @TempDir Path dir;

  private static String key(final SplittableRandom random) {
    return String.format("k%05d", random.nextInt(KEYS));
  }

  /** Counts per key in a plain (not timestamped) persistent store, logged, uncached. */
  private static Topology topology() {
    final Topology topology = new Topology();
    topology.addSource("events", STRING.deserializer(), STRING.deserializer(), "events");
    topology.addProcessor("count", CountProcessor::new, "events");
    topology.addStateStore(
        Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), STRING, LONG), "count");
    return topology;
  }

  private static final class CountProcessor implements Processor<String, String, Void, Void> {
    private KeyValueStore<String, Long> counts;

    @Override
    public void init(final ProcessorContext<Void, Void> context) {
      counts = context.getStateStore(STORE);
    }

    @Override
    public void process(final Record<String, String> record) {
      final Long count = counts.get(record.key());
      counts.put(record.key(), count == null ? 1 : count + 1);
    }
  }

  /** What the driver's store held at the end, and what it wrote to its changelog. */
  private record Original(Map<String, Long> contents, List<TestRecord<byte[], byte[]>> changelog) {}

  private Original runOriginal(final StoreConfig config) {
    try (TopologyTestDriver driver =
        new TopologyTestDriver(topology(), config.props(APP, dir.resolve(config + "-original")))) {
      final TestInputTopic<String, String> in =
          driver.createInputTopic("events", STRING.serializer(), STRING.serializer());
      final SplittableRandom random = new SplittableRandom(4);
      for (int i = 0; i < RECORDS; i++) {
        in.pipeInput(key(random), "x", i);
      }
      final KeyValueStore<String, Long> store = driver.getKeyValueStore(STORE);
      final Map<String, Long> contents = new TreeMap<>();
      try (KeyValueIterator<String, Long> all = store.all()) {
        all.forEachRemaining(kv -> contents.put(kv.key, kv.value));
      }
      final ByteArrayDeserializer bytes = new ByteArrayDeserializer();
      final List<TestRecord<byte[], byte[]>> changelog =
          driver.createOutputTopic(CHANGELOG, bytes, bytes).readRecordsToList();
      return new Original(contents, changelog);
    }
  }

  /** Restores {@code changelog} into a new store in {@code stateDir}; its contents. */
  private static Map<String, Long> restore(final StoreConfig config, final Path stateDir,
      final List<TestRecord<byte[], byte[]>> changelog) {
    try (StandaloneStore restored = StandaloneStore.open(config, APP, stateDir, STORE, Map.of())) {
      final RecordBatchingStateRestoreCallback callback =
          assertInstanceOf(RecordBatchingStateRestoreCallback.class, restored.restoreCallback());
      final List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
      long offset = 0;
      for (final TestRecord<byte[], byte[]> r : changelog) {
        batch.add(new ConsumerRecord<>(CHANGELOG, 0, offset++, r.timestamp(),
            TimestampType.CREATE_TIME, r.key().length, r.value() == null ? -1 : r.value().length,
            r.key(), r.value(), r.headers(), Optional.empty()));
        if (batch.size() == RESTORE_BATCH) {
          callback.restoreBatch(batch);
          batch.clear();
        }
      }
      callback.restoreBatch(batch);

      final Map<String, Long> contents = new TreeMap<>();
      try (KeyValueIterator<Bytes, byte[]> all = restored.store().all()) {
        while (all.hasNext()) {
          final KeyValue<Bytes, byte[]> kv = all.next();
          contents.put(STRING.deserializer().deserialize(CHANGELOG, kv.key.get()),
              LONG.deserializer().deserialize(CHANGELOG, kv.value));
        }
      }
      return contents;
    }
  }

  @Test
  void storeRebuiltFromItsChangelog() {
    final Map<String, Long> expected = new TreeMap<>();
    final SplittableRandom random = new SplittableRandom(4);
    for (int i = 0; i < RECORDS; i++) {
      expected.merge(key(random), 1L, Long::sum);
    }

    final Map<StoreConfig, Map<String, Long>> restored = new EnumMap<>(StoreConfig.class);
    for (final StoreConfig config : StoreConfig.values()) {
      final Original original = runOriginal(config);
      assertEquals(expected, original.contents());
      // Every update is logged (the store is uncached).
      assertEquals(RECORDS, original.changelog().size());
      final Path restoreDir = dir.resolve(config + "-restored");
      restored.put(config, restore(config, restoreDir, original.changelog()));
      assertEquals(expected, restored.get(config));
      // Closing the restored store flushed it.
      config.assertStoreRan(restoreDir, STORE);
    }
    assertEquals(restored.get(StoreConfig.DEFAULT), restored.get(StoreConfig.CUCKOO));
  }
}

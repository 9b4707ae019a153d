package dev.rocksdbcuckoo.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.Options;

/**
 * One AsyncExecutorEnv for all stores, and Kafka Streams' close order:
 * {@code RocksDBStore.close()} calls the setter's {@code close} (which may
 * close the Env) before it closes the DB, whose close then flushes the
 * memtables through that Env. Every driver close below takes that path too.
 */
class SharedEnvTest {
  @TempDir Path dir;

  /** Two tables, so two stores (two DBs) in one topology. */
  private static Topology topology() {
    final StreamsBuilder builder = new StreamsBuilder();
    for (final String name : new String[] {"left", "right"}) {
      builder.table(name, Consumed.with(Serdes.String(), Serdes.String()),
          Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(name + "-store"));
    }
    return builder.build();
  }

  private static void write(final TopologyTestDriver driver) {
    for (final String name : new String[] {"left", "right"}) {
      final TestInputTopic<String, String> in = driver.createInputTopic(
          name, Serdes.String().serializer(), Serdes.String().serializer());
      for (int k = 0; k < 1_000; k++) {
        in.pipeInput("k" + k, name + k, k);
      }
    }
  }

  private TopologyTestDriver driver(final String app) {
    return new TopologyTestDriver(topology(), StoreConfig.CUCKOO.props(app, dir.resolve(app)));
  }

  @Test
  void allStoresOfTheJvmShareOneEnvUntilTheLastCloses() {
    // A holder of our own keeps the Env open to look at it.
    final CuckooRocksDBConfigSetter probe = new CuckooRocksDBConfigSetter();
    try (Options options = new Options()) {
      probe.setConfig("probe", options, Map.of());
      final AsyncExecutorEnv env = (AsyncExecutorEnv) options.getEnv();
      assertEquals(0, env.users());

      final TopologyTestDriver first = driver("first");
      write(first);
      assertEquals(3, SharedEnvs.holders(""));
      final long oneApp = env.users();
      assertTrue(oneApp > 0, "the stores' DBs do not use the probe's Env");

      final TopologyTestDriver second = driver("second");
      write(second);
      assertEquals(5, SharedEnvs.holders(""));
      assertEquals(2 * oneApp, env.users());

      first.close();
      assertEquals(oneApp, env.users());
      second.close();
      assertEquals(1, SharedEnvs.holders(""));
      assertEquals(0, env.users());
      probe.close("probe", options);
    }
    assertEquals(0, SharedEnvs.holders(""));
  }

  /**
   * With one store, its setter's close is the last holder's: the Env's Java
   * object closes, and then the DB closes and flushes its memtables through
   * the native Env, which is still alive. (A store outside a driver, since a
   * driver deletes the files when it closes.)
   */
  @Test
  void lastStoreClosesTheEnvBeforeItsDbAndTheDbStillFlushes() {
    final Path stateDir = dir.resolve("alone");
    try (StandaloneStore alone =
        StandaloneStore.open(StoreConfig.CUCKOO, "alone", stateDir, "store", Map.of())) {
      for (int k = 0; k < 1_000; k++) {
        alone.store().put(Bytes.wrap(("k" + k).getBytes(UTF_8)), ("v" + k).getBytes(UTF_8));
      }
      assertEquals(1, SharedEnvs.holders(""));
    }
    assertEquals(0, SharedEnvs.holders(""));
    StoreFiles.assertCuckooStore(stateDir, "store");
    // Reopened with a new Env, the store reads the flushed file back.
    try (StandaloneStore reopened =
        StandaloneStore.open(StoreConfig.CUCKOO, "alone", stateDir, "store", Map.of())) {
      for (final int k : new int[] {0, 7, 999}) {
        assertArrayEquals(("v" + k).getBytes(UTF_8),
            reopened.store().get(Bytes.wrap(("k" + k).getBytes(UTF_8))));
      }
    }
  }
}

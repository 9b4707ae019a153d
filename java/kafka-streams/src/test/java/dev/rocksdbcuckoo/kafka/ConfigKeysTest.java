package dev.rocksdbcuckoo.kafka;

import static dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter.ENV_CONFIG;
import static dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter.MEMTABLE_CONFIG;
import static dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter.TABLE_CONFIG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
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
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.Options;

/**
 * Each key of {@link CuckooRocksDBConfigSetter}, set through the Streams
 * config of a TopologyTestDriver; the store's OPTIONS file (written when it
 * opens) shows what it runs with.
 */
class ConfigKeysTest {
  private static final String STORE = "kv-store";

  @TempDir Path dir;

  private static Topology topology() {
    final StreamsBuilder builder = new StreamsBuilder();
    builder.table("kv", Consumed.with(Serdes.String(), Serdes.String()),
        Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(STORE));
    return builder.build();
  }

  private static void write(final TopologyTestDriver driver) {
    final TestInputTopic<String, String> in = driver.createInputTopic(
        "kv", Serdes.String().serializer(), Serdes.String().serializer());
    for (int k = 0; k < 1_000; k++) {
      in.pipeInput("k" + k, "v" + k, k);
    }
  }

  /**
   * Opens the store under CUCKOO plus {@code keys}, writes a little and runs
   * {@code whileOpen} before the driver closes (and deletes the files).
   */
  private void withStore(final Map<String, String> keys, final Runnable whileOpen) {
    try (TopologyTestDriver driver =
        new TopologyTestDriver(topology(), StoreConfig.CUCKOO.props("keys", dir, keys))) {
      write(driver);
      whileOpen.run();
    }
  }

  private Map<String, Map<String, String>> dataColumnFamilies() {
    final List<Path> dbs = StoreFiles.dbDirs(dir, STORE);
    assertEquals(1, dbs.size(), dbs.toString());
    final Map<String, Map<String, String>> cfs = StoreFiles.dataColumnFamilyOptions(dbs.get(0));
    assertFalse(cfs.isEmpty());
    return cfs;
  }

  @Test
  void tableAndMemtableOptionsReachTheOptionsFile() {
    withStore(Map.of(TABLE_CONFIG, "hash_table_ratio=0.8;checksum=kCRC32c",
        MEMTABLE_CONFIG, "bucket_count=4096"), () -> {
          StoreFiles.assertCuckooOptions(dir, STORE);
          final Map<String, Map<String, String>> sections =
              StoreFiles.latestOptions(StoreFiles.dbDirs(dir, STORE).get(0));
          for (final String cf : dataColumnFamilies().keySet()) {
            final Map<String, String> table =
                sections.get("TableOptions/" + CuckooHashTableConfig.NAME + " \"" + cf + "\"");
            assertNotNull(table, "no table section for " + cf + " in " + sections.keySet());
            assertEquals(0.8, Double.parseDouble(table.get("hash_table_ratio")));
            assertEquals("kCRC32c", table.get("checksum"));
            final String memtable =
                sections.get("CFOptions \"" + cf + "\"").get("memtable_factory");
            assertTrue(memtable.contains("bucket_count=4096"), memtable);
          }
        });
  }

  @Test
  void noneKeepsKafkaStreamsTableMemtableAndEnv() {
    withStore(Map.of(TABLE_CONFIG, "none", MEMTABLE_CONFIG, "none", ENV_CONFIG, "none"), () -> {
      StoreFiles.assertDefaultOptions(dir, STORE);
      assertEquals(0, SharedEnvs.holders(""));
    });
  }

  @Test
  void eachPartIsChosenOnItsOwn() {
    withStore(Map.of(TABLE_CONFIG, "none"), () -> dataColumnFamilies().forEach((cf, options) -> {
      assertEquals("BlockBasedTable", options.get("table_factory"), cf);
      assertTrue(options.get("memtable_factory").contains("striped_hash"), cf);
    }));
  }

  @Test
  void envOptionsReachTheEnvTheStoreUses() {
    final String envOptions = "low_pri_threads=3";
    // A holder of our own, so that the shared Env can be looked at.
    final CuckooRocksDBConfigSetter probe = new CuckooRocksDBConfigSetter();
    try (Options options = new Options()) {
      probe.setConfig("probe", options, Map.of(ENV_CONFIG, envOptions));
      final AsyncExecutorEnv env = (AsyncExecutorEnv) options.getEnv();
      assertEquals(3, env.config().lowPriThreads());
      assertEquals(0, env.users());
      withStore(Map.of(ENV_CONFIG, envOptions), () -> {
        assertEquals(2, SharedEnvs.holders(envOptions));
        assertTrue(env.users() > 0, "the store's DB does not use the shared Env");
      });
      assertEquals(0, env.users());
      probe.close("probe", options);
    }
    assertEquals(0, SharedEnvs.holders(envOptions));
  }

  @Test
  void refusedValueFailsTheStoreOpenWithRocksDbsMessage() {
    final String value = "hash_table_ratio=1.5";
    final String message = assertThrows(IllegalArgumentException.class,
        () -> CuckooHashTableConfig.fromString(value)).getMessage();
    final Exception e = assertThrows(Exception.class,
        () -> withStore(Map.of(TABLE_CONFIG, value), () -> { }));
    Throwable cause = e;
    while (cause != null && !(cause instanceof ConfigException)) {
      cause = cause.getCause();
    }
    assertNotNull(cause, "no ConfigException in the chain of " + e);
    assertTrue(cause.getMessage().contains(TABLE_CONFIG), cause.getMessage());
    assertTrue(cause.getMessage().contains(message), cause.getMessage());
    assertEquals(0, SharedEnvs.holders(""));
  }
}

package dev.rocksdbcuckoo.kafka;

import static dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter.ENV_CONFIG;
import static dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter.MEMTABLE_CONFIG;
import static dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter.TABLE_CONFIG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ChecksumType;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.StripedHashMemTableConfig;
import org.rocksdb.StripedHashMemTableConfig.StripeMode;

/** The setter on plain RocksJava Options, without Kafka Streams around it. */
class CuckooRocksDBConfigSetterTest {
  @Test
  void defaultsSetTableMemtableAndEnv() {
    final CuckooRocksDBConfigSetter setter = new CuckooRocksDBConfigSetter();
    try (Options options = new Options()) {
      setter.setConfig("store", options, Map.of());
      final CuckooHashTableConfig table =
          assertInstanceOf(CuckooHashTableConfig.class, options.tableFormatConfig());
      assertEquals(new CuckooHashTableConfig().toString(), table.toString());
      assertInstanceOf(StripedHashMemTableConfig.class, options.memTableConfig());
      assertInstanceOf(AsyncExecutorEnv.class, options.getEnv());
      assertEquals(1, SharedEnvs.holders(""));
      setter.close("store", options);
      assertEquals(0, SharedEnvs.holders(""));
    }
  }

  @Test
  void optionStringsReachEachPart() {
    final CuckooRocksDBConfigSetter setter = new CuckooRocksDBConfigSetter();
    try (Options options = new Options()) {
      setter.setConfig("store", options, Map.of(
          TABLE_CONFIG, "hash_table_ratio=0.8;checksum=kCRC32c",
          MEMTABLE_CONFIG, "bucket_count=4096;stripe_mode=core",
          ENV_CONFIG, "low_pri_threads=3"));
      final CuckooHashTableConfig table = (CuckooHashTableConfig) options.tableFormatConfig();
      assertEquals(0.8, table.hashTableRatio());
      assertEquals(ChecksumType.kCRC32c, table.checksumType());
      final StripedHashMemTableConfig memtable =
          (StripedHashMemTableConfig) options.memTableConfig();
      assertEquals(4096, memtable.bucketCount());
      assertEquals(StripeMode.CORE, memtable.stripeMode());
      assertEquals(3, ((AsyncExecutorEnv) options.getEnv()).config().lowPriThreads());
      setter.close("store", options);
    }
  }

  @Test
  void noneKeepsKafkaStreamsChoices() {
    final CuckooRocksDBConfigSetter setter = new CuckooRocksDBConfigSetter();
    try (Options options = new Options()) {
      final BlockBasedTableConfig kafkaTable = new BlockBasedTableConfig();
      options.setTableFormatConfig(kafkaTable);
      final Env kafkaEnv = options.getEnv();
      setter.setConfig("store", options,
          Map.of(TABLE_CONFIG, "none", MEMTABLE_CONFIG, " NONE ", ENV_CONFIG, "None"));
      assertSame(kafkaTable, options.tableFormatConfig());
      assertNull(options.memTableConfig());
      assertSame(kafkaEnv, options.getEnv());
      setter.close("store", options);
    }
  }

  static Stream<Arguments> refusedValues() {
    return Stream.of(
        Arguments.of(TABLE_CONFIG, "hash_table_ratio=1.5"),
        Arguments.of(TABLE_CONFIG, "no_such_option=1"),
        Arguments.of(MEMTABLE_CONFIG, "bucket_count=3"),
        Arguments.of(MEMTABLE_CONFIG, "stripe_mode=diagonal"),
        Arguments.of(ENV_CONFIG, "low_pri_threads=5000"),
        Arguments.of(ENV_CONFIG, "no_such_option=1"));
  }

  /** RocksDB's own refusal of {@code value} for {@code key}'s part. */
  private static String rocksDbMessage(final String key, final String value) {
    return assertThrows(IllegalArgumentException.class, () -> {
      switch (key) {
        case TABLE_CONFIG -> CuckooHashTableConfig.fromString(value);
        case MEMTABLE_CONFIG -> StripedHashMemTableConfig.fromString(value);
        default -> AsyncExecutorEnv.fromString(value).close();
      }
    }).getMessage();
  }

  @ParameterizedTest
  @MethodSource("refusedValues")
  void refusedValueThrowsWithRocksDbsMessageAndChangesNothing(
      final String key, final String value) {
    final String message = rocksDbMessage(key, value);
    final CuckooRocksDBConfigSetter setter = new CuckooRocksDBConfigSetter();
    try (Options options = new Options()) {
      final BlockBasedTableConfig kafkaTable = new BlockBasedTableConfig();
      options.setTableFormatConfig(kafkaTable);
      final Env kafkaEnv = options.getEnv();
      final ConfigException e = assertThrows(ConfigException.class,
          () -> setter.setConfig("store", options, Map.of(key, value)));
      assertTrue(e.getMessage().contains(key), e.getMessage());
      assertTrue(e.getMessage().contains(message), e.getMessage() + " lacks " + message);
      assertInstanceOf(IllegalArgumentException.class, e.getCause());
      assertSame(kafkaTable, options.tableFormatConfig());
      assertNull(options.memTableConfig());
      assertSame(kafkaEnv, options.getEnv());
      assertEquals(0, SharedEnvs.holders(""));
      assertEquals(0, SharedEnvs.holders(value));
    }
  }

  @Test
  void entrySlabMustFitKafkaStreamsWriteBuffers() {
    final CuckooRocksDBConfigSetter setter = new CuckooRocksDBConfigSetter();
    final Map<String, Object> slab = Map.of(MEMTABLE_CONFIG, "entry_slab_size=4194304");
    try (Options options = new Options()) {
      // Kafka Streams' stores have 16 MiB write buffers.
      options.setWriteBufferSize(16L << 20);
      final ConfigException e =
          assertThrows(ConfigException.class, () -> setter.setConfig("store", options, slab));
      assertTrue(e.getMessage().contains("entry_slab_size"), e.getMessage());
      assertNull(options.memTableConfig());

      options.setWriteBufferSize(32L << 20);
      setter.setConfig("store", options, slab);
      assertEquals(
          4L << 20, ((StripedHashMemTableConfig) options.memTableConfig()).entrySlabSize());
      setter.close("store", options);
    }
  }

  @Test
  void storesShareOneEnvPerOptionsString() {
    final CuckooRocksDBConfigSetter first = new CuckooRocksDBConfigSetter();
    final CuckooRocksDBConfigSetter second = new CuckooRocksDBConfigSetter();
    final CuckooRocksDBConfigSetter other = new CuckooRocksDBConfigSetter();
    final CuckooRocksDBConfigSetter later = new CuckooRocksDBConfigSetter();
    try (Options a = new Options(); Options b = new Options(); Options c = new Options();
        Options d = new Options()) {
      first.setConfig("a", a, Map.of());
      second.setConfig("b", b, Map.of());
      other.setConfig("c", c, Map.of(ENV_CONFIG, "fair_share=false"));
      assertSame(a.getEnv(), b.getEnv());
      assertNotSame(a.getEnv(), c.getEnv());
      assertEquals(2, SharedEnvs.holders(""));
      assertEquals(1, SharedEnvs.holders("fair_share=false"));

      first.close("a", a);
      assertEquals(1, SharedEnvs.holders(""));
      second.close("b", b);
      other.close("c", c);
      assertEquals(0, SharedEnvs.holders(""));
      assertEquals(0, SharedEnvs.holders("fair_share=false"));

      // The last holder closed it; the next store gets a new one.
      later.setConfig("d", d, Map.of());
      assertNotSame(a.getEnv(), d.getEnv());
      later.close("d", d);
    }
  }
}

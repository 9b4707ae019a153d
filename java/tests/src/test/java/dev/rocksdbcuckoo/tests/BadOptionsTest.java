package dev.rocksdbcuckoo.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.AsyncExecutorEnvConfig;
import org.rocksdb.ChecksumType;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.CuckooOptionsUtil;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.StripedHashMemTableConfig;
import org.rocksdb.StripedHashMemTableConfig.StripeMode;

/**
 * Out-of-range and unknown options of each part, by class and by name: each is refused with
 * RocksDB's message, which names the option, and a setter that refuses a value keeps the one
 * before.
 */
class BadOptionsTest {
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;

  private static void assertNamesOption(final Throwable e, final String option) {
    assertNotNull(e.getMessage(), "no message: " + e);
    assertTrue(
        e.getMessage().contains(option), "message does not name " + option + ": " + e.getMessage());
  }

  private static Arguments tableCase(
      final String option, final Object value, final Consumer<CuckooHashTableConfig> set) {
    return Arguments.of(option, value, set);
  }

  private static Arguments memTableCase(
      final String option, final Object value, final Consumer<StripedHashMemTableConfig> set) {
    return Arguments.of(option, value, set);
  }

  private static Arguments envCase(
      final String option, final Object value, final Consumer<AsyncExecutorEnvConfig> set) {
    return Arguments.of(option, value, set);
  }

  // ---- CuckooHashTableConfig ----

  static Stream<Arguments> refusedTableValues() {
    return Stream.of(
        tableCase("hash_table_ratio", 0.0, c -> c.setHashTableRatio(0.0)),
        tableCase("hash_table_ratio", 1.0, c -> c.setHashTableRatio(1.0)),
        tableCase("hash_table_ratio", -0.5, c -> c.setHashTableRatio(-0.5)),
        tableCase("hash_table_ratio", 1.5, c -> c.setHashTableRatio(1.5)),
        tableCase("hash_table_ratio", Double.NaN, c -> c.setHashTableRatio(Double.NaN)),
        tableCase("max_search_depth", 0, c -> c.setMaxSearchDepth(0)),
        tableCase("max_search_depth", 100_001, c -> c.setMaxSearchDepth(100_001)),
        tableCase("max_search_depth", -1, c -> c.setMaxSearchDepth(-1)),
        tableCase("checksum", ChecksumType.kxxHash, c -> c.setChecksumType(ChecksumType.kxxHash)),
        tableCase(
            "checksum", ChecksumType.kxxHash64, c -> c.setChecksumType(ChecksumType.kxxHash64)));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("refusedTableValues")
  void tableConfigSetterRefusesAndKeepsOldValue(
      final String option, final Object value, final Consumer<CuckooHashTableConfig> set) {
    final CuckooHashTableConfig config =
        new CuckooHashTableConfig()
            .setHashTableRatio(0.7)
            .setMaxSearchDepth(77)
            .setChecksumType(ChecksumType.kCRC32c);
    final String before = config.toString();
    assertNamesOption(
        assertThrows(IllegalArgumentException.class, () -> set.accept(config)), option);
    assertEquals(before, config.toString());
    assertEquals(0.7, config.hashTableRatio());
    assertEquals(77, config.maxSearchDepth());
    assertEquals(ChecksumType.kCRC32c, config.checksumType());
  }

  @Test
  void tableConfigAcceptsItsRange() {
    final CuckooHashTableConfig config = new CuckooHashTableConfig();
    for (final double ratio : new double[] {0.001, 0.5, 0.999}) {
      assertEquals(ratio, config.setHashTableRatio(ratio).hashTableRatio());
    }
    for (final int depth : new int[] {1, 100_000}) {
      assertEquals(depth, config.setMaxSearchDepth(depth).maxSearchDepth());
    }
    for (final ChecksumType type :
        new ChecksumType[] {ChecksumType.kNoChecksum, ChecksumType.kCRC32c, ChecksumType.kXXH3}) {
      assertEquals(type, config.setChecksumType(type).checksumType());
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "no_such_table_option=1 | no_such_table_option",
        "hash_table_ratio=2 | hash_table_ratio",
        "max_search_depth=abc | max_search_depth",
        "checksum=kxxHash | checksum",
        "slot_ordered=perhaps | slot_ordered"
      })
  void tableConfigFromStringRefusesWithOptionName(final String options, final String option) {
    assertNamesOption(
        assertThrows(
            IllegalArgumentException.class, () -> CuckooHashTableConfig.fromString(options)),
        option);
  }

  // ---- StripedHashMemTableConfig ----

  static Stream<Arguments> refusedMemTableValues() {
    return Stream.of(
        memTableCase("bucket_count", 15L, c -> c.setBucketCount(15)),
        memTableCase("bucket_count", 0L, c -> c.setBucketCount(0)),
        memTableCase("bucket_count", GIB + 1, c -> c.setBucketCount(GIB + 1)),
        memTableCase("bucket_count", -1L, c -> c.setBucketCount(-1)),
        memTableCase("max_load_factor", 0.24, c -> c.setMaxLoadFactor(0.24)),
        memTableCase("max_load_factor", 0.91, c -> c.setMaxLoadFactor(0.91)),
        memTableCase("max_load_factor", 0.0, c -> c.setMaxLoadFactor(0.0)),
        memTableCase("entry_slab_size", 1L, c -> c.setEntrySlabSize(1)),
        memTableCase("entry_slab_size", 4 * MIB - 1, c -> c.setEntrySlabSize(4 * MIB - 1)),
        memTableCase("entry_slab_size", GIB + 1, c -> c.setEntrySlabSize(GIB + 1)));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("refusedMemTableValues")
  void memTableConfigSetterRefusesAndKeepsOldValue(
      final String option, final Object value, final Consumer<StripedHashMemTableConfig> set) {
    final StripedHashMemTableConfig config =
        new StripedHashMemTableConfig()
            .setBucketCount(4096)
            .setMaxLoadFactor(0.5)
            .setStripeMode(StripeMode.CORE)
            .setEntrySlabSize(8 * MIB);
    final String before = config.toString();
    assertNamesOption(
        assertThrows(IllegalArgumentException.class, () -> set.accept(config)), option);
    assertEquals(before, config.toString());
    assertEquals(4096, config.bucketCount());
    assertEquals(0.5, config.maxLoadFactor());
    assertEquals(StripeMode.CORE, config.stripeMode());
    assertEquals(8 * MIB, config.entrySlabSize());
  }

  @Test
  void memTableConfigAcceptsItsRange() {
    final StripedHashMemTableConfig config = new StripedHashMemTableConfig();
    for (final long count : new long[] {16, GIB}) {
      assertEquals(count, config.setBucketCount(count).bucketCount());
    }
    for (final double factor : new double[] {0.25, 0.9}) {
      assertEquals(factor, config.setMaxLoadFactor(factor).maxLoadFactor());
    }
    for (final long size : new long[] {4 * MIB, GIB, 0}) {
      assertEquals(size, config.setEntrySlabSize(size).entrySlabSize());
    }
    for (final StripeMode mode : StripeMode.values()) {
      assertEquals(mode, config.setStripeMode(mode).stripeMode());
      assertEquals(mode, StripedHashMemTableConfig.fromString(config.toString()).stripeMode());
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "no_such_memtable_option=1 | no_such_memtable_option",
        "bucket_count=8 | bucket_count",
        "max_load_factor=0.95 | max_load_factor",
        "stripe_mode=diagonal | stripe_mode",
        "entry_slab_size=12345 | entry_slab_size"
      })
  void memTableConfigFromStringRefusesWithOptionName(final String options, final String option) {
    assertNamesOption(
        assertThrows(
            IllegalArgumentException.class, () -> StripedHashMemTableConfig.fromString(options)),
        option);
  }

  @Test
  void openRefusesEntrySlabAboveAnEighthOfTheWriteBuffer(@TempDir final Path dir) throws Exception {
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        Options options =
            new Options()
                .setCreateIfMissing(true)
                .setEnv(env)
                .setWriteBufferSize(8 * MIB)
                .setTableFormatConfig(new CuckooHashTableConfig())
                .setMemTableConfig(new StripedHashMemTableConfig().setEntrySlabSize(4 * MIB))) {
      final RocksDBException e =
          assertThrows(RocksDBException.class, () -> RocksDB.open(options, dir.toString()));
      assertNamesOption(e, "entry_slab_size");
      assertEquals(0, env.users(), "a DB that failed to open holds the Env");
    }
  }

  @Test
  void openRefusesInplaceUpdateSupport(@TempDir final Path dir) throws Exception {
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        Options options =
            new Options()
                .setCreateIfMissing(true)
                .setEnv(env)
                .setAllowConcurrentMemtableWrite(false) // else RocksDB itself refuses first
                .setInplaceUpdateSupport(true)
                .setMemTableConfig(new StripedHashMemTableConfig())) {
      final RocksDBException e =
          assertThrows(RocksDBException.class, () -> RocksDB.open(options, dir.toString()));
      assertNamesOption(e, "inplace_update_support");
      assertNamesOption(e, "striped_hash");
    }
  }

  // ---- AsyncExecutorEnv ----

  static Stream<Arguments> refusedEnvThreads() {
    return Stream.of(-1, 1025, Integer.MIN_VALUE)
        .flatMap(
            threads ->
                Stream.of(
                    envCase("high_pri_threads", threads, c -> c.setHighPriThreads(threads)),
                    envCase("low_pri_threads", threads, c -> c.setLowPriThreads(threads)),
                    envCase("bottom_pri_threads", threads, c -> c.setBottomPriThreads(threads)),
                    envCase("user_pri_threads", threads, c -> c.setUserPriThreads(threads))));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("refusedEnvThreads")
  void envRefusesThreadsOutOfRange(
      final String option, final int threads, final Consumer<AsyncExecutorEnvConfig> set) {
    final AsyncExecutorEnvConfig config = new AsyncExecutorEnvConfig();
    set.accept(config);
    assertNamesOption(
        assertThrows(IllegalArgumentException.class, () -> new AsyncExecutorEnv(config)), option);
    assertNamesOption(
        assertThrows(
            IllegalArgumentException.class,
            () -> AsyncExecutorEnv.fromString(option + "=" + threads)),
        option);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "no_such_env_option=1 | no_such_env_option",
        "fair_share=maybe | fair_share",
        "low_pri_threads=abc | low_pri_threads"
      })
  void envFromStringRefusesUnknownAndMalformedOptions(final String options, final String option) {
    assertNamesOption(
        assertThrows(IllegalArgumentException.class, () -> AsyncExecutorEnv.fromString(options)),
        option);
  }

  @Test
  void envAcceptsItsRange() {
    try (AsyncExecutorEnv env =
        AsyncExecutorEnv.fromString(
            "id=AsyncExecutorEnv;high_pri_threads=0;low_pri_threads=3;fair_share=false")) {
      assertEquals(3, env.config().lowPriThreads());
      assertEquals(0, env.config().highPriThreads());
      assertEquals(false, env.config().fairShare());
      assertEquals(0, env.users());
    }
  }

  // ---- By name ----

  static Stream<Arguments> refusedByName() {
    return Stream.of(
        Arguments.of(
            "table_factory", "{id=CuckooHashTable;hash_table_ratio=1.5}", "hash_table_ratio"),
        Arguments.of(
            "table_factory", "{id=CuckooHashTable;max_search_depth=0}", "max_search_depth"),
        Arguments.of("table_factory", "{id=CuckooHashTable;checksum=kxxHash64}", "checksum"),
        Arguments.of(
            "table_factory", "{id=CuckooHashTable;no_such_table_option=1}", "no_such_table_option"),
        Arguments.of("memtable_factory", "{id=striped_hash;bucket_count=8}", "bucket_count"),
        Arguments.of(
            "memtable_factory", "{id=striped_hash;max_load_factor=0.95}", "max_load_factor"),
        Arguments.of(
            "memtable_factory", "{id=striped_hash;entry_slab_size=12345}", "entry_slab_size"),
        Arguments.of("memtable_factory", "{id=striped_hash;stripe_mode=diagonal}", "stripe_mode"),
        Arguments.of(
            "memtable_factory",
            "{id=striped_hash;no_such_memtable_option=1}",
            "no_such_memtable_option"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("refusedByName")
  void columnFamilyOptionsByNameRefuseWithOptionName(
      final String key, final String value, final String option) {
    try (ConfigOptions config = new ConfigOptions()) {
      final RocksDBException e =
          assertThrows(
              RocksDBException.class,
              () -> CuckooOptionsUtil.columnFamilyOptionsFromString(config, key + "=" + value));
      assertNamesOption(e, option);
      // RocksJava's own by-name path says only "null".
      final Properties props = new Properties();
      props.setProperty(key, value);
      assertNull(ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, props));
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "max_background_jobs=abc | max_background_jobs",
        "no_such_db_option=1 | no_such_db_option"
      })
  void dbOptionsByNameRefuseWithOptionName(final String options, final String option) {
    try (ConfigOptions config = new ConfigOptions()) {
      assertNamesOption(
          assertThrows(
              RocksDBException.class, () -> CuckooOptionsUtil.dbOptionsFromString(config, options)),
          option);
    }
  }

  @Test
  void envCannotBeSetByNameThroughDbOptions() {
    // env= goes through Env::CreateFromString, which makes only Envs that
    // need no owner; AsyncExecutorEnv is made with AsyncExecutorEnv.fromString.
    try (ConfigOptions config = new ConfigOptions()) {
      final RocksDBException e =
          assertThrows(
              RocksDBException.class,
              () -> CuckooOptionsUtil.dbOptionsFromString(config, "env=AsyncExecutorEnv"));
      assertNamesOption(e, "AsyncExecutorEnv");
      final Properties props = new Properties();
      props.setProperty("env", "AsyncExecutorEnv");
      assertNull(DBOptions.getDBOptionsFromProps(config, props));
    }
  }
}

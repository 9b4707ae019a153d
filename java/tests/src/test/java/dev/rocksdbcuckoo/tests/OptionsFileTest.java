package dev.rocksdbcuckoo.tests;

import static dev.rocksdbcuckoo.tests.Checks.CUCKOO_TABLE_SECTION;
import static dev.rocksdbcuckoo.tests.Checks.DEFAULT_CF_SECTION;
import static dev.rocksdbcuckoo.tests.Checks.assertKeys;
import static dev.rocksdbcuckoo.tests.Checks.assertOurTablesRan;
import static dev.rocksdbcuckoo.tests.Checks.newestOptionsFile;
import static dev.rocksdbcuckoo.tests.Checks.parseOptions;
import static dev.rocksdbcuckoo.tests.Checks.populate;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.AsyncExecutorEnvConfig;
import org.rocksdb.ChecksumType;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.CuckooOptionsUtil;
import org.rocksdb.DBOptions;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;
import org.rocksdb.StripedHashMemTableConfig;
import org.rocksdb.StripedHashMemTableConfig.StripeMode;

/**
 * What Java sets is what the DB's OPTIONS file then says, and what {@link CuckooOptionsUtil} reads
 * back from it; the configurations' defaults and strings agree with the native ones.
 */
class OptionsFileTest {
  private static final long MIB = 1L << 20;

  private static CuckooHashTableConfig nonDefaultTable() {
    return new CuckooHashTableConfig()
        .setHashTableRatio(0.75)
        .setIdentityAsFirstHash(true)
        .setMaxSearchDepth(64)
        .setSlotOrdered(false)
        .setChecksumType(ChecksumType.kCRC32c)
        .setLoadInBackground(false);
  }

  private static StripedHashMemTableConfig nonDefaultMemTable() {
    return new StripedHashMemTableConfig()
        .setBucketCount(4096)
        .setMaxLoadFactor(0.5)
        .setStripeMode(StripeMode.CORE)
        .setEntrySlabSize(4 * MIB);
  }

  /** The value of {@code name} inside a by-name object such as {id=x;name=v}. */
  private static String nested(final String object, final String name) {
    final Matcher m =
        Pattern.compile("(?:^|[{;])\\s*" + Pattern.quote(name) + "=([^;}]*)").matcher(object);
    assertTrue(m.find(), "no " + name + " in " + object);
    return m.group(1).trim();
  }

  private static void assertTableSection(
      final Path dbDir,
      final double ratio,
      final boolean identity,
      final int depth,
      final boolean slotOrdered,
      final String checksum,
      final boolean background)
      throws IOException {
    final Path file = newestOptionsFile(dbDir);
    final Map<String, String> table = parseOptions(file).get(CUCKOO_TABLE_SECTION);
    assertNotNull(table, "no [" + CUCKOO_TABLE_SECTION + "] in " + file);
    assertEquals(ratio, Double.parseDouble(table.get("hash_table_ratio")), 1e-9, file.toString());
    assertEquals(String.valueOf(identity), table.get("identity_as_first_hash"), file.toString());
    assertEquals(String.valueOf(depth), table.get("max_search_depth"), file.toString());
    assertEquals(String.valueOf(slotOrdered), table.get("slot_ordered"), file.toString());
    assertEquals(checksum, table.get("checksum"), file.toString());
    assertEquals(String.valueOf(background), table.get("load_in_background"), file.toString());
  }

  private static void assertMemTable(
      final Path dbDir, final long buckets, final double factor, final String mode, final long slab)
      throws IOException {
    final Path file = newestOptionsFile(dbDir);
    final String memtable = parseOptions(file).get(DEFAULT_CF_SECTION).get("memtable_factory");
    assertNotNull(memtable, "no memtable_factory in " + file);
    assertEquals("striped_hash", nested(memtable, "id"), memtable);
    assertEquals(String.valueOf(buckets), nested(memtable, "bucket_count"), memtable);
    assertEquals(factor, Double.parseDouble(nested(memtable, "max_load_factor")), 1e-9, memtable);
    assertEquals(mode, nested(memtable, "stripe_mode"), memtable);
    assertEquals(String.valueOf(slab), nested(memtable, "entry_slab_size"), memtable);
  }

  private static void assertNonDefaultTable(final CuckooHashTableConfig table) {
    assertEquals(0.75, table.hashTableRatio());
    assertEquals(true, table.identityAsFirstHash());
    assertEquals(64, table.maxSearchDepth());
    assertEquals(false, table.slotOrdered());
    assertEquals(ChecksumType.kCRC32c, table.checksumType());
    assertEquals(false, table.loadInBackground());
  }

  /** Opens a DB with every value non-default, set by class; fills it; closes it. */
  private static void createNonDefaultDb(final Path dir) throws Exception {
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        DBOptions dbOptions =
            new DBOptions().setCreateIfMissing(true).setEnv(env).setMaxBackgroundJobs(3);
        ColumnFamilyOptions cfOptions =
            new ColumnFamilyOptions()
                .setTableFormatConfig(nonDefaultTable())
                .setMemTableConfig(nonDefaultMemTable());
        RocksDB db =
            RocksDB.open(
                dbOptions,
                dir.toString(),
                List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)),
                new ArrayList<>())) {
      populate(db, 2000, "a");
    }
  }

  @Test
  void whatJavaSetsIsWhatTheOptionsFileSays(@TempDir final Path dir) throws Exception {
    createNonDefaultDb(dir);
    assertOurTablesRan(dir);
    assertTableSection(dir, 0.75, true, 64, false, "kCRC32c", false);
    assertMemTable(dir, 4096, 0.5, "core", 4 * MIB);
    assertEquals(
        "3", parseOptions(newestOptionsFile(dir)).get("DBOptions").get("max_background_jobs"));
  }

  @ParameterizedTest(name = "latest={0}")
  @ValueSource(booleans = {true, false})
  void cuckooOptionsUtilReadsItBack(final boolean latest, @TempDir final Path dir)
      throws Exception {
    createNonDefaultDb(dir);
    final Path optionsFile = newestOptionsFile(dir);
    final List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions();
        DBOptions dbOptions = new DBOptions();
        AsyncExecutorEnv env = new AsyncExecutorEnv()) {
      if (latest) {
        CuckooOptionsUtil.loadLatestOptions(config, dir.toString(), dbOptions, descriptors);
      } else {
        CuckooOptionsUtil.loadOptionsFromFile(
            config, optionsFile.toString(), dbOptions, descriptors);
      }
      try {
        assertEquals(1, descriptors.size());
        assertEquals("default", new String(descriptors.get(0).getName(), UTF_8));
        final ColumnFamilyOptions cfOptions = descriptors.get(0).getOptions();
        assertNonDefaultTable(
            assertInstanceOf(CuckooHashTableConfig.class, cfOptions.tableFormatConfig()));
        assertEquals(CuckooHashTableConfig.NAME, cfOptions.tableFactoryName());
        assertEquals(StripedHashMemTableConfig.NAME, cfOptions.memTableFactoryName());
        assertEquals(3, dbOptions.maxBackgroundJobs());

        // Reopened with what was read (the Env is not in OPTIONS files).
        dbOptions.setEnv(env);
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (RocksDB db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles)) {
          assertKeys(db, 0, 2000, "a");
          assertTrue(env.users() > 0);
        }
      } finally {
        for (final ColumnFamilyDescriptor descriptor : descriptors) {
          descriptor.getOptions().close();
        }
      }
    }
    // The reopened DB wrote a new OPTIONS file with the same values.
    assertTrue(newestOptionsFile(dir).compareTo(optionsFile) != 0);
    assertTableSection(dir, 0.75, true, 64, false, "kCRC32c", false);
    assertMemTable(dir, 4096, 0.5, "core", 4 * MIB);
    assertOurTablesRan(dir);
  }

  @Test
  void rocksJavaOptionsUtilRefusesOurTableFactory(@TempDir final Path dir) throws Exception {
    // The gap CuckooOptionsUtil fills: RocksJava's OptionsUtil only knows
    // BlockBasedTable, and throws for every other table factory.
    createNonDefaultDb(dir);
    final List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions();
        DBOptions dbOptions = new DBOptions()) {
      final IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> OptionsUtil.loadLatestOptions(config, dir.toString(), dbOptions, descriptors));
      assertTrue(e.getMessage().contains("CuckooHashTable"), e.getMessage());
    } finally {
      for (final ColumnFamilyDescriptor descriptor : descriptors) {
        descriptor.getOptions().close();
      }
    }
  }

  @ParameterizedTest(name = "properties={0}")
  @ValueSource(booleans = {true, false})
  void byNameIsWhatTheOptionsFileSays(final boolean properties, @TempDir final Path dir)
      throws Exception {
    final String table =
        "{id=CuckooHashTable;hash_table_ratio=0.8;checksum=kNoChecksum;max_search_depth=300}";
    final String memtable = "{id=striped_hash;bucket_count=2048;stripe_mode=none}";
    try (ConfigOptions config = new ConfigOptions();
        AsyncExecutorEnv env = AsyncExecutorEnv.fromString("low_pri_threads=1");
        DBOptions dbOptions = new DBOptions().setCreateIfMissing(true).setEnv(env)) {
      final ColumnFamilyOptions cfOptions;
      if (properties) {
        final Properties props = new Properties();
        props.setProperty("table_factory", table);
        props.setProperty("memtable_factory", memtable);
        cfOptions = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, props);
        assertNotNull(cfOptions);
      } else {
        cfOptions =
            CuckooOptionsUtil.columnFamilyOptionsFromString(
                config, "table_factory=" + table + ";memtable_factory=" + memtable);
        final CuckooHashTableConfig parsed =
            assertInstanceOf(CuckooHashTableConfig.class, cfOptions.tableFormatConfig());
        assertEquals(0.8, parsed.hashTableRatio());
        assertEquals(ChecksumType.kNoChecksum, parsed.checksumType());
        assertEquals(300, parsed.maxSearchDepth());
        assertEquals(true, parsed.slotOrdered());
      }
      try (cfOptions;
          RocksDB db =
              RocksDB.open(
                  dbOptions,
                  dir.toString(),
                  List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)),
                  new ArrayList<>())) {
        populate(db, 2000, "a");
        assertKeys(db, 0, 2000, "a");
      }
    }
    assertOurTablesRan(dir);
    assertTableSection(dir, 0.8, false, 300, true, "kNoChecksum", true);
    assertMemTable(dir, 2048, 0.75, "none", 0);
  }

  @Test
  void defaultsAgreeWithNative() {
    final CuckooHashTableConfig table = new CuckooHashTableConfig();
    final CuckooHashTableConfig nativeTable = CuckooHashTableConfig.fromString("");
    assertEquals(0.9, table.hashTableRatio());
    assertEquals(false, table.identityAsFirstHash());
    assertEquals(128, table.maxSearchDepth());
    assertEquals(true, table.slotOrdered());
    assertEquals(ChecksumType.kXXH3, table.checksumType());
    assertEquals(true, table.loadInBackground());
    assertEquals(table.toString(), nativeTable.toString());

    final StripedHashMemTableConfig memtable = new StripedHashMemTableConfig();
    final StripedHashMemTableConfig nativeMemTable = StripedHashMemTableConfig.fromString("");
    assertEquals(1024, memtable.bucketCount());
    assertEquals(0.75, memtable.maxLoadFactor());
    assertEquals(StripeMode.AUTO, memtable.stripeMode());
    assertEquals(0, memtable.entrySlabSize());
    assertEquals(memtable.toString(), nativeMemTable.toString());

    try (AsyncExecutorEnv env = new AsyncExecutorEnv()) {
      assertEquals(new AsyncExecutorEnvConfig().toString(), env.config().toString());
    }
  }

  @Test
  void configsRoundTripThroughStrings() {
    final CuckooHashTableConfig table = nonDefaultTable();
    assertTrue(table.toString().contains("hash_table_ratio=0.75"), table.toString());
    assertTrue(table.toString().contains("checksum=kCRC32c"), table.toString());
    assertNonDefaultTable(CuckooHashTableConfig.fromString(table.toString()));
    assertNonDefaultTable(
        CuckooHashTableConfig.fromString("id=CuckooHashTable;" + table.toString()));

    final StripedHashMemTableConfig memtable =
        StripedHashMemTableConfig.fromString(nonDefaultMemTable().toString());
    assertEquals(4096, memtable.bucketCount());
    assertEquals(0.5, memtable.maxLoadFactor());
    assertEquals(StripeMode.CORE, memtable.stripeMode());
    assertEquals(4 * MIB, memtable.entrySlabSize());
    assertEquals(nonDefaultMemTable().toString(), memtable.toString());

    final AsyncExecutorEnvConfig envConfig =
        new AsyncExecutorEnvConfig()
            .setHighPriThreads(1)
            .setLowPriThreads(2)
            .setBottomPriThreads(1)
            .setUserPriThreads(1)
            .setFairShare(false)
            .setStarvationHelper(false)
            .setStatsFile("");
    try (AsyncExecutorEnv byClass = new AsyncExecutorEnv(envConfig);
        AsyncExecutorEnv byName = AsyncExecutorEnv.fromString(envConfig.toString())) {
      for (final AsyncExecutorEnv env : List.of(byClass, byName)) {
        final AsyncExecutorEnvConfig read = env.config();
        assertEquals(1, read.highPriThreads());
        assertEquals(2, read.lowPriThreads());
        assertEquals(1, read.bottomPriThreads());
        assertEquals(1, read.userPriThreads());
        assertEquals(false, read.fairShare());
        assertEquals(false, read.starvationHelper());
        assertEquals("", read.statsFile());
        // Four pools, none has run anything yet.
        Checks.poolRuns(env).values().forEach(n -> assertEquals(0L, n));
      }
    }
  }
}

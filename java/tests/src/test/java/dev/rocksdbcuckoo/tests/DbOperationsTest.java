package dev.rocksdbcuckoo.tests;

import static dev.rocksdbcuckoo.tests.Checks.assertEnvRanFlushAndCompaction;
import static dev.rocksdbcuckoo.tests.Checks.assertKeys;
import static dev.rocksdbcuckoo.tests.Checks.assertOurTablesRan;
import static dev.rocksdbcuckoo.tests.Checks.assertSstsAreOurs;
import static dev.rocksdbcuckoo.tests.Checks.assertTableIsOurs;
import static dev.rocksdbcuckoo.tests.Checks.awaitPoolRuns;
import static dev.rocksdbcuckoo.tests.Checks.flush;
import static dev.rocksdbcuckoo.tests.Checks.key;
import static dev.rocksdbcuckoo.tests.Checks.populate;
import static dev.rocksdbcuckoo.tests.Checks.str;
import static dev.rocksdbcuckoo.tests.Checks.value;
import static dev.rocksdbcuckoo.tests.Checks.writeKeys;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.BackupEngine;
import org.rocksdb.BackupEngineOptions;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.CuckooOptionsUtil;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RestoreOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;
import org.rocksdb.SstFileWriter;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.StripedHashMemTableConfig;

/**
 * RocksDB's operations through RocksJava on a DB whose table format, memtable and Env are
 * rocksdb-cuckoo's, each set by class and by name ({@link Mode}). Every test reads data from SST
 * files our table wrote, and ends by proving from the DB's folder that our parts ran.
 */
class DbOperationsTest {
  private static final int N = 3000;

  @ParameterizedTest
  @EnumSource(Mode.class)
  void optionsNameOurFactories(final Mode mode) throws Exception {
    try (Parts parts = Parts.create(mode)) {
      parts.assertNamesOurFactories();
    }
  }

  @Test
  void singleOptionsObjectByClass(@TempDir final Path dir) throws Exception {
    // RocksJava's most common form: one Options, RocksDB.open(options, path).
    final CuckooHashTableConfig table = new CuckooHashTableConfig().setHashTableRatio(0.7);
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        StringAppendOperator merge = new StringAppendOperator();
        Options options =
            new Options()
                .setCreateIfMissing(true)
                .setEnv(env)
                .setTableFormatConfig(table)
                .setMemTableConfig(new StripedHashMemTableConfig())
                .setMergeOperator(merge);
        RocksDB db = RocksDB.open(options, dir.toString())) {
      assertSame(table, options.tableFormatConfig());
      assertEquals(CuckooHashTableConfig.NAME, options.tableFactoryName());
      assertEquals(StripedHashMemTableConfig.NAME, options.memTableFactoryName());
      populate(db, N, "a");
      db.merge(key(1), "m".getBytes(UTF_8));
      assertKeys(db, 2, N, "a");
      assertEquals(str(value("a", 1)) + ",m", str(db.get(key(1))));
      assertEnvRanFlushAndCompaction(env);
    }
    assertOurTablesRan(dir);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void putGetDelete(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      writeKeys(db, 0, N, "a");
      assertKeys(db, 0, N, "a"); // from the memtable
      flush(db);
      db.compactRange();
      assertKeys(db, 0, N, "a"); // from our table
      assertNull(db.get(key(N)));
      assertNull(db.get("absent".getBytes(UTF_8)));
      db.put(key(5), "new".getBytes(UTF_8));
      db.delete(key(6));
      assertEquals("new", str(db.get(key(5))));
      assertNull(db.get(key(6)));
      flush(db);
      assertEquals("new", str(db.get(key(5))));
      assertNull(db.get(key(6)));
      assertEquals(str(value("a", 7)), str(db.get(key(7))));
      assertEnvRanFlushAndCompaction(parts.env);
    }
    assertOurTablesRan(dir);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void multiGetAsList(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      populate(db, N, "a");
      writeKeys(db, N, N + 100, "mem"); // some in the memtable
      final List<byte[]> keys = new ArrayList<>();
      final List<String> expected = new ArrayList<>();
      for (int i = 0; i < N + 100; i += 7) {
        keys.add(key(i));
        expected.add(str(value(i < N ? "a" : "mem", i)));
        keys.add((str(key(i)) + "-absent").getBytes(UTF_8));
        expected.add(null);
      }
      assertEquals(
          expected, db.multiGetAsList(keys).stream().map(Checks::str).collect(Collectors.toList()));
      try (ReadOptions readOptions = new ReadOptions().setVerifyChecksums(true)) {
        assertEquals(
            expected,
            db.multiGetAsList(readOptions, keys).stream()
                .map(Checks::str)
                .collect(Collectors.toList()));
      }
      assertEnvRanFlushAndCompaction(parts.env);
    }
    assertOurTablesRan(dir);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void iterators(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      // Even keys in our table, odd keys in the memtable: iterators merge both.
      for (int i = 0; i < N; i += 2) {
        db.put(key(i), value("a", i));
      }
      flush(db);
      db.compactRange();
      for (int i = 1; i < N; i += 2) {
        db.put(key(i), value("a", i));
      }
      try (RocksIterator it = db.newIterator()) {
        int i = 0;
        for (it.seekToFirst(); it.isValid(); it.next()) {
          assertEquals(str(key(i)), str(it.key()));
          assertEquals(str(value("a", i)), str(it.value()));
          i++;
        }
        it.status();
        assertEquals(N, i);

        i = N;
        for (it.seekToLast(); it.isValid(); it.prev()) {
          i--;
          assertEquals(str(key(i)), str(it.key()));
        }
        assertEquals(0, i);

        it.seek(key(500));
        assertEquals(str(key(500)), str(it.key()));
        it.next();
        assertEquals(str(key(501)), str(it.key()));
        it.prev();
        assertEquals(str(key(500)), str(it.key()));
        it.prev();
        assertEquals(str(key(499)), str(it.key()));

        it.seek((str(key(1000)) + "x").getBytes(UTF_8));
        assertEquals(str(key(1001)), str(it.key()));
        it.seekForPrev((str(key(1000)) + "x").getBytes(UTF_8));
        assertEquals(str(key(1000)), str(it.key()));
        it.seekForPrev(key(1001));
        assertEquals(str(key(1001)), str(it.key()));
        it.seekForPrev("a".getBytes(UTF_8));
        assertFalse(it.isValid());
        it.seek("z".getBytes(UTF_8));
        assertFalse(it.isValid());
        it.status();
      }
      try (Slice upper = new Slice(key(200));
          ReadOptions readOptions = new ReadOptions().setIterateUpperBound(upper);
          RocksIterator it = db.newIterator(readOptions)) {
        int count = 0;
        for (it.seek(key(100)); it.isValid(); it.next()) {
          count++;
        }
        assertEquals(100, count);
      }
      assertEnvRanFlushAndCompaction(parts.env);
    }
    assertOurTablesRan(dir);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void snapshots(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      populate(db, N, "old");
      final Snapshot snapshot = db.getSnapshot();
      writeKeys(db, 0, N, "new");
      for (int i = 0; i < N; i += 10) {
        db.delete(key(i));
      }
      flush(db);
      db.compactRange(); // keeps the versions the snapshot sees, in our table
      try (ReadOptions atSnapshot = new ReadOptions().setSnapshot(snapshot)) {
        for (int i = 0; i < N; i++) {
          assertEquals(str(value("old", i)), str(db.get(atSnapshot, key(i))), str(key(i)));
        }
        try (RocksIterator it = db.newIterator(atSnapshot)) {
          int count = 0;
          for (it.seekToFirst(); it.isValid(); it.next()) {
            assertEquals(str(value("old", count)), str(it.value()));
            count++;
          }
          assertEquals(N, count);
        }
      }
      for (int i = 0; i < N; i++) {
        assertEquals(i % 10 == 0 ? null : str(value("new", i)), str(db.get(key(i))));
      }
      db.releaseSnapshot(snapshot);
      db.compactRange();
      for (int i = 0; i < N; i++) {
        assertEquals(i % 10 == 0 ? null : str(value("new", i)), str(db.get(key(i))));
      }
      assertEnvRanFlushAndCompaction(parts.env);
    }
    assertOurTablesRan(dir);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void deleteRange(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      populate(db, N, "a");
      db.deleteRange(key(1000), key(2000));
      flush(db); // the range tombstone goes into an SST file of its own
      assertTrue(Checks.sstFiles(dir).size() >= 2, "files: " + Checks.sstFiles(dir));
      assertDeletedRange(db);
      db.compactRange();
      assertDeletedRange(db);
      assertEnvRanFlushAndCompaction(parts.env);
    }
    assertOurTablesRan(dir);
  }

  private static void assertDeletedRange(final RocksDB db) throws Exception {
    assertKeys(db, 0, 1000, "a");
    assertKeys(db, 2000, N, "a");
    for (int i = 1000; i < 2000; i++) {
      assertNull(db.get(key(i)), str(key(i)));
    }
    try (RocksIterator it = db.newIterator()) {
      int count = 0;
      for (it.seekToFirst(); it.isValid(); it.next()) {
        count++;
      }
      assertEquals(N - 1000, count);
      it.seek(key(1000));
      assertEquals(str(key(2000)), str(it.key()));
      it.seekForPrev(key(1999));
      assertEquals(str(key(999)), str(it.key()));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void merge(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      for (int i = 0; i < N; i++) {
        db.merge(key(i), "a".getBytes(UTF_8));
      }
      flush(db);
      for (int i = 0; i < N; i++) {
        db.merge(key(i), "b".getBytes(UTF_8));
      }
      flush(db); // two files of merge operands
      for (int i = 0; i < N; i += 3) {
        db.merge(key(i), "c".getBytes(UTF_8)); // and some in the memtable
      }
      assertMerged(db);
      db.compactRange();
      assertMerged(db);
      flush(db);
      db.compactRange();
      assertMerged(db);
      assertEnvRanFlushAndCompaction(parts.env);
    }
    assertOurTablesRan(dir);
  }

  private static void assertMerged(final RocksDB db) throws Exception {
    for (int i = 0; i < N; i++) {
      assertEquals(i % 3 == 0 ? "a,b,c" : "a,b", str(db.get(key(i))), str(key(i)));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void compactRange(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      for (int round = 0; round < 3; round++) {
        writeKeys(db, 0, N, "round" + round);
        flush(db);
      }
      assertEquals("3", db.getProperty("rocksdb.num-files-at-level0"));
      assertKeys(db, 0, N, "round2"); // the newest of three overlapping files
      db.compactRange();
      assertEquals("0", db.getProperty("rocksdb.num-files-at-level0"));
      assertKeys(db, 0, N, "round2");
      final List<LiveFileMetaData> live = db.getLiveFilesMetaData();
      assertFalse(live.isEmpty());
      long entries = 0;
      for (final LiveFileMetaData file : live) {
        assertTableIsOurs(Path.of(file.path(), file.fileName()));
        entries += file.numEntries();
      }
      assertEquals(N, entries); // the compaction dropped the older versions
      awaitPoolRuns(parts.env, "low", n -> n >= 1);
      assertEnvRanFlushAndCompaction(parts.env);
    }
    assertOurTablesRan(dir);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sstFileWriterAndIngestExternalFile(final Mode mode, @TempDir final Path dir)
      throws Exception {
    final Path dbDir = dir.resolve("db");
    final Path external = dir.resolve("external.sst");
    final Path overlapping = dir.resolve("overlapping.sst");
    try (Parts parts = Parts.create(mode)) {
      writeExternalFile(parts, external, N, 2 * N, "ingested");
      writeExternalFile(parts, overlapping, 0, 100, "over");
      assertTableIsOurs(external); // SstFileWriter used our table format
      assertTableIsOurs(overlapping);
      try (RocksDB db = parts.open(dbDir)) {
        populate(db, N, "a");
        try (IngestExternalFileOptions ingest = new IngestExternalFileOptions()) {
          db.ingestExternalFile(List.of(external.toString()), ingest);
          db.ingestExternalFile(List.of(overlapping.toString()), ingest);
        }
        assertIngested(db);
        db.compactRange();
        assertIngested(db);
        assertEnvRanFlushAndCompaction(parts.env);
      }
    }
    assertOurTablesRan(dbDir);
  }

  private static void writeExternalFile(
      final Parts parts, final Path file, final int from, final int to, final String tag)
      throws Exception {
    try (EnvOptions envOptions = new EnvOptions();
        SstFileWriter writer = new SstFileWriter(envOptions, parts.options())) {
      writer.open(file.toString());
      for (int i = from; i < to; i++) {
        writer.put(key(i), value(tag, i));
      }
      writer.finish();
    }
  }

  private static void assertIngested(final RocksDB db) throws Exception {
    assertKeys(db, 0, 100, "over");
    assertKeys(db, 100, N, "a");
    assertKeys(db, N, 2 * N, "ingested");
    try (RocksIterator it = db.newIterator()) {
      int count = 0;
      for (it.seekToFirst(); it.isValid(); it.next()) {
        assertArrayEquals(key(count), it.key());
        count++;
      }
      assertEquals(2 * N, count);
    }
  }

  /**
   * How a backup shares table files. BackupEngine's default naming of shared files
   * (kUseDbSessionId) reads each table's properties with RocksDB's own readers, which refuse our
   * format (plugin/README.md); RocksJava has no setter for share_files_with_checksum_naming, so
   * Java backs up our tables with one of these.
   */
  enum Sharing {
    /** {@code CuckooOptionsUtil.setLegacyBackupFileNaming}: shared, named by CRC32c and size. */
    SHARED_BY_CHECKSUM,
    /** {@code setShareFilesWithChecksum(false)}: shared, named by file number. */
    SHARED_BY_FILE_NAME,
    /** {@code setShareTableFiles(false)}: each backup has its own copies. */
    PRIVATE
  }

  static Stream<Arguments> backupCases() {
    final List<Arguments> cases = new ArrayList<>();
    for (final Mode mode : Mode.values()) {
      for (final Sharing sharing : Sharing.values()) {
        cases.add(Arguments.of(mode, sharing));
      }
    }
    return cases.stream();
  }

  private static BackupEngineOptions backupOptions(final Path backupDir, final Sharing sharing) {
    final BackupEngineOptions options = new BackupEngineOptions(backupDir.toString());
    switch (sharing) {
      case SHARED_BY_CHECKSUM:
        return CuckooOptionsUtil.setLegacyBackupFileNaming(options);
      case PRIVATE:
        return options.setShareTableFiles(false);
      default:
        return options.setShareFilesWithChecksum(false);
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("backupCases")
  void backupAndRestore(final Mode mode, final Sharing sharing, @TempDir final Path dir)
      throws Exception {
    final Path dbDir = dir.resolve("db");
    final Path backupDir = dir.resolve("backup");
    final Path restoreDir = dir.resolve("restored");
    Files.createDirectories(backupDir); // BackupEngineOptions wants it to exist
    try (Parts parts = Parts.create(mode)) {
      try (RocksDB db = parts.open(dbDir)) {
        populate(db, N, "a");
        writeKeys(db, N, N + 100, "a"); // in the memtable: the backup flushes it
        try (BackupEngineOptions options = backupOptions(backupDir, sharing);
            BackupEngine backups = BackupEngine.open(parts.env, options)) {
          backups.createNewBackup(db, true);
          assertEquals(1, backups.getBackupInfo().size());
        }
        writeKeys(db, 0, 10, "after"); // not in the backup
      }
      try (BackupEngineOptions options = backupOptions(backupDir, sharing);
          BackupEngine backups = BackupEngine.open(parts.env, options);
          RestoreOptions restoreOptions = new RestoreOptions(false)) {
        backups.restoreDbFromLatestBackup(
            restoreDir.toString(), restoreDir.toString(), restoreOptions);
      }
      assertSstsAreOurs(restoreDir);
      try (RocksDB db = parts.open(restoreDir)) {
        assertKeys(db, 0, N + 100, "a");
        writeKeys(db, N + 100, N + 200, "b");
        flush(db);
        assertKeys(db, N + 100, N + 200, "b");
      }
    }
    assertOurTablesRan(restoreDir);
    final List<Path> backedUp;
    try (Stream<Path> files = Files.walk(backupDir)) {
      backedUp = files.filter(p -> p.toString().endsWith(".sst")).collect(Collectors.toList());
    }
    assertFalse(backedUp.isEmpty(), "no SST file in the backup");
    for (final Path sst : backedUp) {
      assertTableIsOurs(sst);
    }
  }

  @Test
  void backupWithDefaultNamingRefusesOurTables(@TempDir final Path dir) throws Exception {
    // Documents the gap above: with RocksJava's default BackupEngineOptions
    // (shared files named by DB session id) RocksDB 11 cannot read our
    // tables' properties and records no backup.
    final Path backupDir = dir.resolve("backup");
    Files.createDirectories(backupDir);
    try (Parts parts = Parts.create(Mode.BY_CLASS);
        RocksDB db = parts.open(dir.resolve("db"))) {
      populate(db, 100, "a");
      try (BackupEngineOptions options = new BackupEngineOptions(backupDir.toString());
          BackupEngine backups = BackupEngine.open(parts.env, options)) {
        final RocksDBException e =
            assertThrows(RocksDBException.class, () -> backups.createNewBackup(db, true));
        assertTrue(e.getMessage().contains("magic"), e.getMessage());
        assertTrue(backups.getBackupInfo().isEmpty());
      }
      assertKeys(db, 0, 100, "a");
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void checkpoint(final Mode mode, @TempDir final Path dir) throws Exception {
    final Path dbDir = dir.resolve("db");
    final Path checkpointDir = dir.resolve("checkpoint");
    try (Parts parts = Parts.create(mode)) {
      try (RocksDB db = parts.open(dbDir)) {
        populate(db, N, "a");
        writeKeys(db, N, N + 100, "a"); // in the memtable
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
          checkpoint.createCheckpoint(checkpointDir.toString());
        }
        writeKeys(db, 0, 10, "after"); // not in the checkpoint
        assertEnvRanFlushAndCompaction(parts.env);
      }
      assertSstsAreOurs(checkpointDir);
      try (RocksDB db = parts.open(checkpointDir)) {
        assertKeys(db, 0, N + 100, "a");
        db.compactRange();
        assertKeys(db, 0, N + 100, "a");
      }
    }
    assertOurTablesRan(checkpointDir);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void reopen(final Mode mode, @TempDir final Path dir) throws Exception {
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      populate(db, N, "a");
      writeKeys(db, N, N + 200, "wal"); // only in the memtable and the WAL
      db.delete(key(3));
    }
    final List<Path> before = Checks.sstFiles(dir);
    try (Parts parts = Parts.create(mode);
        RocksDB db = parts.open(dir)) {
      assertKeys(db, 0, 3, "a");
      assertNull(db.get(key(3)));
      assertKeys(db, 4, N, "a");
      assertKeys(db, N, N + 200, "wal");
      db.compactRange();
      assertKeys(db, N, N + 200, "wal");
    }
    assertOurTablesRan(dir);
    assertFalse(before.isEmpty());
  }

  @Test
  void assertOurTablesRanCatchesBlockBasedTable(@TempDir final Path dir) throws Exception {
    // The helper every test ends with fails on RocksDB's default table.
    try (Parts parts = Parts.create(Mode.BY_CLASS);
        ColumnFamilyOptions plain = new ColumnFamilyOptions();
        RocksDB db =
            RocksDB.open(
                parts.dbOptions,
                dir.toString(),
                List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, plain)),
                new ArrayList<>())) {
      writeKeys(db, 0, 100, "a");
      flush(db);
    }
    final AssertionError error = assertThrows(AssertionError.class, () -> assertOurTablesRan(dir));
    assertTrue(error.getMessage().contains("table_factory"), error.getMessage());
    final AssertionError magic = assertThrows(AssertionError.class, () -> assertSstsAreOurs(dir));
    assertTrue(magic.getMessage().contains("BlockBasedTable"), magic.getMessage());
  }
}

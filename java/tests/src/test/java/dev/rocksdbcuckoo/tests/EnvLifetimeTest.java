package dev.rocksdbcuckoo.tests;

import static dev.rocksdbcuckoo.tests.Checks.assertKeys;
import static dev.rocksdbcuckoo.tests.Checks.assertOurTablesRan;
import static dev.rocksdbcuckoo.tests.Checks.flush;
import static dev.rocksdbcuckoo.tests.Checks.key;
import static dev.rocksdbcuckoo.tests.Checks.populate;
import static dev.rocksdbcuckoo.tests.Checks.value;
import static dev.rocksdbcuckoo.tests.Checks.writeKeys;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.StripedHashMemTableConfig;

/**
 * What holds the native AsyncExecutorEnv besides Java's handle (users()): column families created
 * and dropped, read-only and secondary DBs, opens that fail, DestroyDB; and DBs closed from several
 * threads while their compactions run, after the Env's Java object closed.
 */
class EnvLifetimeTest {
  private static Options options(final AsyncExecutorEnv env) {
    return new Options()
        .setCreateIfMissing(true)
        .setEnv(env)
        .setTableFormatConfig(new CuckooHashTableConfig())
        .setMemTableConfig(new StripedHashMemTableConfig());
  }

  @Test
  void columnFamiliesCountWhileTheyLive(@TempDir final Path dir) throws Exception {
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        Options options = options(env)) {
      try (RocksDB db = RocksDB.open(options, dir.toString());
          ColumnFamilyOptions cfOptions =
              new ColumnFamilyOptions()
                  .setTableFormatConfig(new CuckooHashTableConfig())
                  .setMemTableConfig(new StripedHashMemTableConfig())) {
        final long base = env.users();
        assertTrue(base > 0);
        final ColumnFamilyHandle handle =
            db.createColumnFamily(new ColumnFamilyDescriptor("cf1".getBytes(UTF_8), cfOptions));
        assertEquals(base + 1, env.users(), "a new column family holds the Env");
        db.put(handle, key(1), value("cf", 1));
        try (FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true)) {
          db.flush(flushOptions, handle);
        }
        assertArrayEquals(value("cf", 1), db.get(handle, key(1)));
        db.dropColumnFamily(handle);
        handle.close(); // the dropped family ends with its last handle
        assertEquals(base, env.users());
        populate(db, 100, "a"); // the dropped family's file is gone; one of the default's
      }
      assertEquals(0, env.users());
    }
    assertOurTablesRan(dir);
  }

  @Test
  void failedOpensReleaseWhatTheyTook(@TempDir final Path dir) throws Exception {
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        Options options = options(env)) {
      try (RocksDB db = RocksDB.open(options, dir.toString())) {
        final long open = env.users();
        // The LOCK is taken: a second open fails and gives back what it took.
        assertThrows(RocksDBException.class, () -> RocksDB.open(options, dir.toString()));
        assertEquals(open, env.users());
        populate(db, 100, "a");
      }
      assertEquals(0, env.users());
      try (Options exists = options(env).setErrorIfExists(true)) {
        assertThrows(RocksDBException.class, () -> RocksDB.open(exists, dir.toString()));
      }
      assertEquals(0, env.users());
    }
    assertOurTablesRan(dir);
  }

  @Test
  void readOnlyAndSecondaryOutliveTheEnvsJavaObject(@TempDir final Path dir) throws Exception {
    final Path dbDir = dir.resolve("db");
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        Options options = options(env);
        RocksDB db = RocksDB.open(options, dbDir.toString())) {
      populate(db, 1000, "a");
    }
    final AsyncExecutorEnv readOnlyEnv = new AsyncExecutorEnv();
    final AsyncExecutorEnv secondaryEnv = new AsyncExecutorEnv();
    try (Options readOnlyOptions = options(readOnlyEnv);
        Options secondaryOptions = options(secondaryEnv)) {
      final RocksDB readOnly = RocksDB.openReadOnly(readOnlyOptions, dbDir.toString());
      final RocksDB secondary =
          RocksDB.openAsSecondary(
              secondaryOptions, dbDir.toString(), dir.resolve("secondary").toString());
      try {
        assertTrue(readOnlyEnv.users() > 0, "a read-only DB holds its Env");
        assertTrue(secondaryEnv.users() > 0, "a secondary DB holds its Env");
        readOnlyEnv.close();
        secondaryEnv.close();
        assertKeys(readOnly, 0, 1000, "a");
        secondary.tryCatchUpWithPrimary();
        assertKeys(secondary, 0, 1000, "a");
      } finally {
        readOnly.close();
        secondary.close();
      }
    }
    assertOurTablesRan(dbDir);
  }

  @Test
  void destroyDbReleasesItsLock(@TempDir final Path dir) throws Exception {
    try (AsyncExecutorEnv env = new AsyncExecutorEnv();
        Options options = options(env)) {
      try (RocksDB db = RocksDB.open(options, dir.toString())) {
        populate(db, 100, "a");
      }
      assertOurTablesRan(dir);
      RocksDB.destroyDB(dir.toString(), options);
      assertEquals(0, env.users());
      assertFalse(Files.exists(dir.resolve("CURRENT")));
    }
  }

  @Test
  void dbsCloseFromOtherThreadsWhileCompactingAfterTheEnvClosed(@TempDir final Path dir)
      throws Exception {
    final int dbs = 3;
    final int keys = 8000;
    final ExecutorService threads = Executors.newFixedThreadPool(dbs);
    try {
      for (int round = 0; round < 2; round++) {
        final AsyncExecutorEnv env =
            AsyncExecutorEnv.fromString("low_pri_threads=2;high_pri_threads=1");
        final List<Options> options = new ArrayList<>();
        final List<RocksDB> open = new ArrayList<>();
        final List<Path> dirs = new ArrayList<>();
        for (int d = 0; d < dbs; d++) {
          options.add(
              options(env).setWriteBufferSize(128 << 10).setLevel0FileNumCompactionTrigger(2));
          dirs.add(dir.resolve("r" + round + "db" + d));
          open.add(RocksDB.open(options.get(d), dirs.get(d).toString()));
        }
        final List<Future<?>> jobs = new ArrayList<>();
        for (int d = 0; d < dbs; d++) {
          final RocksDB db = open.get(d);
          jobs.add(
              threads.submit(
                  () -> {
                    writeKeys(db, 0, keys, "a");
                    return null;
                  }));
        }
        for (final Future<?> job : jobs) {
          job.get(60, TimeUnit.SECONDS);
        }
        // Compactions are likely running now; Java lets go of everything.
        env.close();
        for (final Options o : options) {
          o.close();
        }
        jobs.clear();
        for (final RocksDB db : open) {
          jobs.add(
              threads.submit(
                  () -> {
                    db.close();
                    return null;
                  }));
        }
        for (final Future<?> job : jobs) {
          job.get(60, TimeUnit.SECONDS);
        }
        try (AsyncExecutorEnv again = new AsyncExecutorEnv();
            Options reopen = options(again)) {
          for (final Path dbDir : dirs) {
            try (RocksDB db = RocksDB.open(reopen, dbDir.toString())) {
              assertKeys(db, 0, keys, "a");
              flush(db);
            }
            assertOurTablesRan(dbDir);
          }
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }
}

package dev.rocksdbcuckoo.tests;

import static dev.rocksdbcuckoo.tests.Checks.assertKeys;
import static dev.rocksdbcuckoo.tests.Checks.assertOurTablesRan;
import static dev.rocksdbcuckoo.tests.Checks.awaitPoolRuns;
import static dev.rocksdbcuckoo.tests.Checks.flush;
import static dev.rocksdbcuckoo.tests.Checks.key;
import static dev.rocksdbcuckoo.tests.Checks.poolRuns;
import static dev.rocksdbcuckoo.tests.Checks.str;
import static dev.rocksdbcuckoo.tests.Checks.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * Several DBs on one AsyncExecutorEnv, written from a thread each at once: every DB ends with
 * exactly its own data, in our tables, after flushes and compactions the shared Env ran.
 */
class MultiDbSharedEnvTest {
  private static final int DBS = 4;
  private static final int KEYS = 12_000;

  @ParameterizedTest
  @EnumSource(Mode.class)
  void concurrentWritersOnSharedEnv(final Mode mode, @TempDir final Path dir) throws Exception {
    final List<Path> dirs = new ArrayList<>();
    final List<RocksDB> dbs = new ArrayList<>();
    try (Parts parts = Parts.create(mode)) {
      // Small memtables and an early L0 trigger: each DB flushes and compacts
      // by itself while the others write.
      parts.cfOptions.setWriteBufferSize(256 << 10).setLevel0FileNumCompactionTrigger(2);
      try {
        assertEquals(0, parts.env.users(), "users with no DB open");
        long usersPerDb = 0;
        for (int d = 0; d < DBS; d++) {
          dirs.add(dir.resolve("db" + d));
          dbs.add(parts.open(dirs.get(d)));
          if (d == 0) {
            usersPerDb = parts.env.users();
            assertTrue(usersPerDb > 0, "users with one DB open");
          }
        }
        assertEquals(DBS * usersPerDb, parts.env.users(), "users with " + DBS + " DBs open");

        final ExecutorService threads = Executors.newFixedThreadPool(DBS);
        try {
          final CountDownLatch start = new CountDownLatch(1);
          final List<Future<?>> writers = new ArrayList<>();
          for (int d = 0; d < DBS; d++) {
            final RocksDB db = dbs.get(d);
            final String tag = "db" + d;
            writers.add(
                threads.submit(
                    () -> {
                      start.await();
                      try (WriteOptions writeOptions = new WriteOptions().setDisableWAL(false)) {
                        for (int i = 0; i < KEYS; i++) {
                          db.put(writeOptions, key(i), value(tag, i));
                          if (i % 4000 == 3999) {
                            flush(db);
                          }
                        }
                      }
                      // Each writer reads its own data back while the others write.
                      assertKeys(db, 0, KEYS, tag);
                      db.compactRange();
                      return null;
                    }));
          }
          start.countDown();
          for (final Future<?> writer : writers) {
            writer.get(60, TimeUnit.SECONDS);
          }
        } finally {
          threads.shutdownNow();
        }

        for (int d = 0; d < DBS; d++) {
          final RocksDB db = dbs.get(d);
          assertKeys(db, 0, KEYS, "db" + d);
          try (RocksIterator it = db.newIterator()) {
            int count = 0;
            for (it.seekToFirst(); it.isValid(); it.next()) {
              count++;
            }
            assertEquals(KEYS, count, "keys in db" + d);
          }
          assertEquals("0", db.getProperty("rocksdb.num-files-at-level0"), "db" + d);
        }
        // Every DB flushed at least 3 times and compacted, all on this Env.
        awaitPoolRuns(parts.env, "low", n -> n >= DBS);
        final Map<String, Long> runs = poolRuns(parts.env);
        assertTrue(runs.get("high") + runs.get("low") >= 4L * DBS, parts.env.statsString());

        // users() counts down as the DBs close.
        for (int d = DBS - 1; d >= 0; d--) {
          dbs.remove(d).close();
          assertEquals(d * usersPerDb, parts.env.users(), "users with " + d + " DBs open");
        }
      } finally {
        for (final RocksDB db : dbs) {
          db.close();
        }
      }
    }
    for (int d = 0; d < DBS; d++) {
      assertOurTablesRan(dirs.get(d));
    }
    // Reopened, each DB has its own values only.
    try (Parts parts = Parts.create(mode)) {
      for (int d = 0; d < DBS; d++) {
        try (RocksDB db = parts.open(dirs.get(d))) {
          assertEquals(str(value("db" + d, 17)), str(db.get(key(17))));
          assertKeys(db, 0, KEYS, "db" + d);
        }
      }
    }
  }
}

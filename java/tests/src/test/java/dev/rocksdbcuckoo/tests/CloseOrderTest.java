package dev.rocksdbcuckoo.tests;

import static dev.rocksdbcuckoo.tests.Checks.assertKeys;
import static dev.rocksdbcuckoo.tests.Checks.assertOurTablesRan;
import static dev.rocksdbcuckoo.tests.Checks.flush;
import static dev.rocksdbcuckoo.tests.Checks.populate;
import static dev.rocksdbcuckoo.tests.Checks.writeKeys;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.AsyncExecutorEnvConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.StripedHashMemTableConfig;

/**
 * The DB, its options and its AsyncExecutorEnv closed in every order: none crashes, the DB keeps
 * working while it is open whatever else was closed, its data is there after a reopen, and the
 * Env's users count down to 0.
 */
class CloseOrderTest {
  /** What a test closes. */
  enum Part {
    DB,
    OPTIONS,
    ENV
  }

  static Stream<Arguments> orders() {
    final List<Arguments> cases = new ArrayList<>();
    for (final Mode mode : Mode.values()) {
      for (final List<Part> order : permutations(List.of(Part.values()))) {
        cases.add(Arguments.of(mode, order));
      }
    }
    return cases.stream();
  }

  private static List<List<Part>> permutations(final List<Part> parts) {
    if (parts.isEmpty()) {
      return List.of(List.of());
    }
    final List<List<Part>> result = new ArrayList<>();
    for (final Part first : parts) {
      final List<Part> rest = new ArrayList<>(parts);
      rest.remove(first);
      for (final List<Part> tail : permutations(rest)) {
        final List<Part> order = new ArrayList<>();
        order.add(first);
        order.addAll(tail);
        result.add(order);
      }
    }
    return result;
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("orders")
  void closeInAnyOrder(final Mode mode, final List<Part> order, @TempDir final Path dir)
      throws Exception {
    int written = 0;
    final Parts parts = Parts.create(mode);
    final RocksDB db = parts.open(dir);
    try {
      populate(db, 2000, "a");
      writeKeys(db, 2000, 2100, "a"); // only in the memtable and the WAL
      written = 2100;
      boolean dbOpen = true;
      boolean envOpen = true;
      for (final Part part : order) {
        switch (part) {
          case DB:
            if (envOpen) {
              assertTrue(parts.env.users() > 0, "users() with the DB open");
            }
            db.close();
            dbOpen = false;
            if (envOpen) {
              assertEquals(0, parts.env.users(), "users() after the DB closed");
            }
            break;
          case OPTIONS:
            parts.closeOthers();
            parts.cfOptions.close();
            parts.dbOptions.close();
            break;
          case ENV:
            if (dbOpen) {
              // A flush in flight as the Env's Java object goes.
              writeKeys(db, written, written + 500, "a");
              written += 500;
              try (FlushOptions noWait = new FlushOptions().setWaitForFlush(false)) {
                db.flush(noWait);
              }
            }
            parts.env.close();
            envOpen = false;
            break;
          default:
            throw new AssertionError(part);
        }
        if (dbOpen) {
          // The DB works on without what was closed: writes, a flush and a
          // compaction the (natively still alive) Env runs, reads.
          writeKeys(db, written, written + 500, "a");
          written += 500;
          flush(db);
          db.compactRange();
          assertKeys(db, 0, written, "a");
        }
      }
    } finally {
      db.close();
      parts.close();
    }
    try (Parts again = Parts.create(mode);
        RocksDB reopened = again.open(dir)) {
      assertKeys(reopened, 0, written, "a");
      assertTrue(again.env.users() > 0);
    }
    assertOurTablesRan(dir);
  }

  @ParameterizedTest(name = "envFirst={0} byName={1}")
  @CsvSource({"true,false", "false,false", "true,true", "false,true"})
  void statsFileWrittenWhenTheLastUserCloses(
      final boolean envFirst, final boolean byName, @TempDir final Path dir) throws Exception {
    final Path stats = dir.resolve("executor-stats.txt");
    final Path dbDir = dir.resolve("db");
    final AsyncExecutorEnv env =
        byName
            ? AsyncExecutorEnv.fromString("low_pri_threads=1;stats_file=" + stats)
            : new AsyncExecutorEnv(new AsyncExecutorEnvConfig().setStatsFile(stats.toString()));
    assertEquals(stats.toString(), env.config().statsFile());
    try (DBOptions dbOptions = new DBOptions().setCreateIfMissing(true).setEnv(env);
        ColumnFamilyOptions cfOptions =
            new ColumnFamilyOptions()
                .setTableFormatConfig(new CuckooHashTableConfig())
                .setMemTableConfig(new StripedHashMemTableConfig())) {
      final RocksDB db =
          RocksDB.open(
              dbOptions,
              dbDir.toString(),
              List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)),
              new ArrayList<>());
      try {
        populate(db, 1000, "a");
        if (envFirst) {
          env.close();
          // The DB still holds the native Env, which writes its file when it ends.
          assertFalse(Files.exists(stats), "the Env ended while its DB was open");
          writeKeys(db, 1000, 1500, "a");
          flush(db);
          assertKeys(db, 0, 1500, "a");
          db.close();
          assertTrue(Files.exists(stats), "the Env outlived its last DB");
        } else {
          db.close();
          assertEquals(0, env.users());
          assertFalse(Files.exists(stats), "the Env ended before its Java object closed");
          env.close();
          assertTrue(Files.exists(stats), "the Env did not end when closed");
        }
      } finally {
        db.close();
        env.close();
      }
    }
    final String text = Files.readString(stats, UTF_8);
    assertTrue(text.startsWith("AsyncExecutorEnv\n"), text);
    final Matcher low = Pattern.compile("(?m)^low: .*?\\bran=(\\d+)").matcher(text);
    assertTrue(low.find(), text);
    assertTrue(Long.parseLong(low.group(1)) >= 1, "no compaction in the LOW pool: " + text);
    assertOurTablesRan(dbDir);
  }
}

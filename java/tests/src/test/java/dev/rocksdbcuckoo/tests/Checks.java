package dev.rocksdbcuckoo.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/** Test data, and the checks that prove from a DB's folder that our parts ran. */
final class Checks {
  /** kCuckooHashTableMagicNumber (table/cuckoo_hash_table_format.h): "cuckoohs". */
  static final long CUCKOO_MAGIC = 0x73686f6f6b637563L;

  /** BlockBasedTable's magic number, for a clearer failure. */
  static final long BLOCK_BASED_MAGIC = 0x88e241b785f4cff7L;

  /** The section of an OPTIONS file with the default column family's table options. */
  static final String CUCKOO_TABLE_SECTION = "TableOptions/CuckooHashTable \"default\"";

  /** The section of an OPTIONS file with the default column family's options. */
  static final String DEFAULT_CF_SECTION = "CFOptions \"default\"";

  private static final Pattern OPTIONS_FILE = Pattern.compile("OPTIONS-(\\d+)");
  private static final Pattern POOL_RAN = Pattern.compile("(?m)^(\\w+): .*?\\bran=(\\d+)");

  private Checks() {}

  static byte[] key(final int i) {
    return String.format("key%06d", i).getBytes(UTF_8);
  }

  static byte[] value(final String tag, final int i) {
    return (tag + "-value-" + i + "-" + "x".repeat(40)).getBytes(UTF_8);
  }

  static String str(final byte[] bytes) {
    return bytes == null ? null : new String(bytes, UTF_8);
  }

  /** Writes keys [from, to) with {@code value(tag, i)}, in batches. */
  static void writeKeys(final RocksDB db, final int from, final int to, final String tag)
      throws RocksDBException {
    try (WriteOptions writeOptions = new WriteOptions()) {
      for (int start = from; start < to; start += 500) {
        try (WriteBatch batch = new WriteBatch()) {
          for (int i = start; i < Math.min(to, start + 500); i++) {
            batch.put(key(i), value(tag, i));
          }
          db.write(writeOptions, batch);
        }
      }
    }
  }

  /** Flushes the memtable to an SST file and waits for it. */
  static void flush(final RocksDB db) throws RocksDBException {
    try (FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flushOptions);
    }
  }

  /** Writes keys [0, count), flushes them and compacts them into the last level. */
  static void populate(final RocksDB db, final int count, final String tag)
      throws RocksDBException {
    writeKeys(db, 0, count, tag);
    flush(db);
    db.compactRange();
  }

  /** Asserts that the DB holds {@code value(tag, i)} for every key in [from, to). */
  static void assertKeys(final RocksDB db, final int from, final int to, final String tag)
      throws RocksDBException {
    for (int i = from; i < to; i++) {
      final byte[] got = db.get(key(i));
      if (got == null || !str(got).equals(str(value(tag, i)))) {
        fail("key " + str(key(i)) + ": expected " + str(value(tag, i)) + ", got " + str(got));
      }
    }
  }

  /**
   * Proves from the DB's folder that our parts, not RocksDB's defaults, made it: the newest OPTIONS
   * file names CuckooHashTable (with its table options section) and striped_hash, there is at least
   * one SST file, and every SST file ends with CuckooHashTable's magic number.
   */
  static void assertOurTablesRan(final Path dbDir) throws IOException {
    final Map<String, Map<String, String>> options = parseOptions(newestOptionsFile(dbDir));
    final Map<String, String> cf = options.get(DEFAULT_CF_SECTION);
    assertNotNull(cf, "no [" + DEFAULT_CF_SECTION + "] in the OPTIONS file of " + dbDir);
    assertEquals("CuckooHashTable", cf.get("table_factory"), "table_factory in " + dbDir);
    assertTrue(
        options.containsKey(CUCKOO_TABLE_SECTION),
        "no ["
            + CUCKOO_TABLE_SECTION
            + "] in the OPTIONS file of "
            + dbDir
            + ": "
            + options.keySet());
    final String memtable = cf.get("memtable_factory");
    assertNotNull(memtable, "no memtable_factory in " + dbDir);
    assertTrue(memtable.contains("striped_hash"), "memtable_factory in " + dbDir + ": " + memtable);
    assertSstsAreOurs(dbDir);
  }

  /** Asserts that there is an SST file in {@code dir} and that each ends with our magic. */
  static void assertSstsAreOurs(final Path dir) throws IOException {
    final List<Path> ssts = sstFiles(dir);
    assertFalse(ssts.isEmpty(), "no SST file in " + dir);
    for (final Path sst : ssts) {
      assertTableIsOurs(sst);
    }
  }

  /** Asserts that {@code sst} ends with CuckooHashTable's magic number. */
  static void assertTableIsOurs(final Path sst) throws IOException {
    final long magic = magicOf(sst);
    if (magic != CUCKOO_MAGIC) {
      fail(
          sst
              + " ends with magic 0x"
              + Long.toHexString(magic)
              + (magic == BLOCK_BASED_MAGIC ? " (BlockBasedTable)" : "")
              + ", not CuckooHashTable's 0x"
              + Long.toHexString(CUCKOO_MAGIC));
    }
  }

  /** The last 8 bytes of a file, read as a little-endian uint64. */
  static long magicOf(final Path file) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      assertTrue(raf.length() >= 8, file + " is " + raf.length() + " bytes");
      final byte[] tail = new byte[8];
      raf.seek(raf.length() - 8);
      raf.readFully(tail);
      return ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
  }

  static List<Path> sstFiles(final Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".sst"))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /** The OPTIONS-NNNNNN file of {@code dbDir} with the highest number. */
  static Path newestOptionsFile(final Path dbDir) throws IOException {
    try (Stream<Path> files = Files.list(dbDir)) {
      return files
          .filter(p -> OPTIONS_FILE.matcher(p.getFileName().toString()).matches())
          .max(
              Comparator.comparingLong(
                  p -> {
                    final Matcher m = OPTIONS_FILE.matcher(p.getFileName().toString());
                    assertTrue(m.matches());
                    return Long.parseLong(m.group(1));
                  }))
          .orElseThrow(() -> new AssertionError("no OPTIONS file in " + dbDir));
    }
  }

  /**
   * An OPTIONS file as section name (what is inside the brackets, e.g. {@code CFOptions "default"})
   * to its options, each split at its first '='.
   */
  static Map<String, Map<String, String>> parseOptions(final Path file) throws IOException {
    final Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    Map<String, String> section = null;
    for (final String raw : Files.readAllLines(file, UTF_8)) {
      final String line = raw.trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        section = new LinkedHashMap<>();
        sections.put(line.substring(1, line.length() - 1), section);
        continue;
      }
      final int eq = line.indexOf('=');
      if (section != null && eq > 0) {
        section.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
      }
    }
    return sections;
  }

  /** Jobs finished per pool ("bottom", "low", "high", "user") as statsString() says. */
  static Map<String, Long> poolRuns(final AsyncExecutorEnv env) {
    final String stats = env.statsString();
    final Map<String, Long> runs = new LinkedHashMap<>();
    final Matcher m = POOL_RAN.matcher(stats);
    while (m.find()) {
      runs.put(m.group(1), Long.parseLong(m.group(2)));
    }
    assertEquals(
        List.of("bottom", "low", "high", "user"),
        new ArrayList<>(runs.keySet()),
        "pools in statsString():\n" + stats);
    return runs;
  }

  /**
   * Waits (up to 10 s: a job counts as finished just after it wakes the thread waiting for it)
   * until the jobs run in {@code pool} satisfy {@code check}; fails with the Env's statistics
   * otherwise.
   */
  static void awaitPoolRuns(
      final AsyncExecutorEnv env, final String pool, final LongPredicate check)
      throws InterruptedException {
    final long deadline = System.nanoTime() + 10_000_000_000L;
    while (!check.test(poolRuns(env).get(pool))) {
      if (System.nanoTime() > deadline) {
        fail(
            "jobs run in the "
                + pool
                + " pool: "
                + poolRuns(env).get(pool)
                + "\n"
                + env.statsString());
      }
      Thread.sleep(5);
    }
  }

  /** Asserts that the Env ran flushes (HIGH or LOW) and compactions (LOW) for a DB. */
  static void assertEnvRanFlushAndCompaction(final AsyncExecutorEnv env)
      throws InterruptedException {
    awaitPoolRuns(env, "low", n -> n >= 1);
    final long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      final Map<String, Long> runs = poolRuns(env);
      if (runs.get("high") + runs.get("low") >= 2) {
        return;
      }
      if (System.nanoTime() > deadline) {
        fail("too few jobs ran for a flush and a compaction:\n" + env.statsString());
      }
      Thread.sleep(5);
    }
  }
}

package dev.rocksdbcuckoo.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ConfigOptions;
import org.rocksdb.CuckooOptionsUtil;
import org.rocksdb.DBOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Proof, from a store's files, of which table format and memtable a Kafka
 * Streams RocksDB store runs with: the newest OPTIONS file of each of its
 * DBs, and the magic number that ends each of its SST files.
 *
 * <p>TopologyTestDriver deletes its task directories when it closes (it
 * calls {@code StateDirectory.clean()}), so stores under a driver are looked
 * at while it is open: their OPTIONS files are written when they open, and
 * their SSTs once RocksDB has flushed a full memtable (16 MiB in Kafka
 * Streams' stores), which the tests write enough for. Stores opened outside
 * a driver are looked at after they close, which flushes them.
 *
 * <p>Kafka Streams 4.4 keeps its committed offsets in a column family of its
 * own ({@value #OFFSETS_CF}) opened with fixed options that no config setter
 * sees, so that column family is BlockBasedTable in every store and is left
 * out; every other column family holds the store's data.
 */
final class StoreFiles {
  /** {@code kCuckooHashTableMagicNumber}, table/cuckoo_hash_table_format.h. */
  static final long CUCKOO_HASH_TABLE_MAGIC = 0x73686f6f6b637563L;
  /** RocksDB's {@code kBlockBasedTableMagicNumber}. */
  static final long BLOCK_BASED_TABLE_MAGIC = 0x88e241b785f4cff7L;

  static final String OFFSETS_CF = "offsets";

  private StoreFiles() {}

  /**
   * The DB directories of a store under a state directory: one for a
   * key-value store, one per segment for a window or session store.
   */
  static List<Path> dbDirs(final Path stateDir, final String storeName) {
    final List<Path> dbs = new ArrayList<>();
    try {
      Files.walkFileTree(stateDir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(final Path dir, final BasicFileAttributes attrs) {
          if (Files.exists(dir.resolve("CURRENT")) && belongsTo(dir, storeName)) {
            dbs.add(dir);
            return FileVisitResult.SKIP_SUBTREE;
          }
          return FileVisitResult.CONTINUE;
        }

        // A live DB deletes files while it is walked.
        @Override
        public FileVisitResult visitFileFailed(final Path file, final IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (final IOException e) {
      throw new UncheckedIOException(e);
    }
    dbs.sort(Comparator.naturalOrder());
    return dbs;
  }

  private static boolean belongsTo(final Path dbDir, final String storeName) {
    final String name = dbDir.getFileName().toString();
    final String parent = dbDir.getParent().getFileName().toString();
    // A key-value store's DB is rocksdb/<store>; a segment's is <store>/<store>.<id>.
    return name.equals(storeName) || (parent.equals(storeName) && name.startsWith(storeName + "."));
  }

  /** The newest OPTIONS file of a DB, by its number. */
  static Path latestOptionsFile(final Path dbDir) {
    try (Stream<Path> files = Files.list(dbDir)) {
      return files
          .filter(p -> p.getFileName().toString().matches("OPTIONS-\\d+"))
          .max(Comparator.comparingLong(
              p -> Long.parseLong(p.getFileName().toString().substring("OPTIONS-".length()))))
          .orElseThrow(() -> new AssertionError("no OPTIONS file in " + dbDir));
    } catch (final IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The sections of a DB's newest OPTIONS file by header, e.g.
   * {@code CFOptions "default"} or {@code TableOptions/CuckooHashTable "default"}.
   */
  static Map<String, Map<String, String>> latestOptions(final Path dbDir) {
    final Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    Map<String, String> section = null;
    try {
      for (final String raw : Files.readAllLines(latestOptionsFile(dbDir))) {
        final String line = raw.trim();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        if (line.startsWith("[") && line.endsWith("]")) {
          section = new LinkedHashMap<>();
          sections.put(line.substring(1, line.length() - 1), section);
        } else if (section != null && line.contains("=")) {
          final int eq = line.indexOf('=');
          section.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    } catch (final IOException e) {
      throw new UncheckedIOException(e);
    }
    return sections;
  }

  /** The options of each data column family of a DB, by column family name. */
  static Map<String, Map<String, String>> dataColumnFamilyOptions(final Path dbDir) {
    final Map<String, Map<String, String>> byCf = new TreeMap<>();
    latestOptions(dbDir).forEach((header, options) -> {
      if (header.startsWith("CFOptions \"")) {
        final String cf = header.substring("CFOptions \"".length(), header.length() - 1);
        if (!cf.equals(OFFSETS_CF)) {
          byCf.put(cf, options);
        }
      }
    });
    return byCf;
  }

  /**
   * The live SST files of each data column family of a closed DB, as its
   * metadata lists them. The DB is opened read-only with the options of its
   * own OPTIONS file, which also reads every table file once.
   */
  static Map<String, List<Path>> dataSstFiles(final Path dbDir) {
    final List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions().setIgnoreUnknownOptions(false);
        DBOptions dbOptions = new DBOptions()) {
      // RocksJava's OptionsUtil refuses any table factory but BlockBasedTable.
      CuckooOptionsUtil.loadLatestOptions(config, dbDir.toString(), dbOptions, descriptors);
      try (RocksDB db = RocksDB.openReadOnly(dbOptions, dbDir.toString(), descriptors, handles)) {
        final List<LiveFileMetaData> files = db.getLiveFilesMetaData();
        // Handles go before their DB.
        handles.forEach(ColumnFamilyHandle::close);
        final Map<String, List<Path>> byCf = new TreeMap<>();
        for (final LiveFileMetaData file : files) {
          final String cf = new String(file.columnFamilyName(), StandardCharsets.UTF_8);
          if (!cf.equals(OFFSETS_CF)) {
            byCf.computeIfAbsent(cf, k -> new ArrayList<>())
                .add(Path.of(file.path(), file.fileName()));
          }
        }
        return byCf;
      }
    } catch (final RocksDBException e) {
      throw new RocksDbError("cannot read the metadata of " + dbDir, e);
    } finally {
      descriptors.forEach(d -> d.getOptions().close());
    }
  }

  /** The little-endian uint64 that ends a table file: its format's magic number. */
  static long magic(final Path sst) {
    try (FileChannel channel = FileChannel.open(sst, StandardOpenOption.READ)) {
      final ByteBuffer tail = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
      channel.read(tail, channel.size() - Long.BYTES);
      return tail.getLong(0);
    } catch (final IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Asserts that the newest OPTIONS file of every DB of the store names our table and memtable. */
  static void assertCuckooOptions(final Path stateDir, final String storeName) {
    assertOptions(stateDir, storeName, CUCKOO_HASH_TABLE, STRIPED_HASH);
  }

  /** As {@link #assertCuckooOptions}, for Kafka Streams' BlockBasedTable and skip list. */
  static void assertDefaultOptions(final Path stateDir, final String storeName) {
    assertOptions(stateDir, storeName, BLOCK_BASED_TABLE, SKIP_LIST);
  }

  /**
   * Asserts {@link #assertCuckooOptions} and that the store's data SSTs (at
   * least one in all) are CuckooHashTable files.
   *
   * @return how many data SSTs the store has
   */
  static int assertCuckooStore(final Path stateDir, final String storeName) {
    assertCuckooOptions(stateDir, storeName);
    return assertSsts(stateDir, storeName, CUCKOO_HASH_TABLE_MAGIC);
  }

  /** As {@link #assertCuckooStore}, for Kafka Streams' defaults. */
  static int assertDefaultStore(final Path stateDir, final String storeName) {
    assertDefaultOptions(stateDir, storeName);
    return assertSsts(stateDir, storeName, BLOCK_BASED_TABLE_MAGIC);
  }

  private static final String CUCKOO_HASH_TABLE = "CuckooHashTable";
  private static final String STRIPED_HASH = "striped_hash";
  private static final String BLOCK_BASED_TABLE = "BlockBasedTable";
  private static final String SKIP_LIST = "SkipListFactory";

  private static void assertOptions(final Path stateDir, final String storeName,
      final String tableFactory, final String memtableFactory) {
    final List<Path> dbs = dbDirs(stateDir, storeName);
    assertFalse(dbs.isEmpty(), "no DB of store " + storeName + " under " + stateDir);
    for (final Path db : dbs) {
      final Map<String, Map<String, String>> cfs = dataColumnFamilyOptions(db);
      assertFalse(cfs.isEmpty(), "no data column family in " + latestOptionsFile(db));
      cfs.forEach((cf, options) -> {
        assertEquals(tableFactory, options.get("table_factory"), db + " column family " + cf);
        assertTrue(String.valueOf(options.get("memtable_factory")).contains(memtableFactory),
            db + " column family " + cf + " memtable_factory=" + options.get("memtable_factory"));
      });
    }
  }

  /**
   * Asserts that every data SST of the store ends with {@code magic}, once
   * there is at least one: a flush runs in the background, so this waits for
   * one (up to a minute). It also works on the DBs of an open store (read-only
   * opens take no lock), retrying when a flush or compaction changes the
   * files under it.
   */
  private static int assertSsts(final Path stateDir, final String storeName, final long magic) {
    final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (true) {
      try {
        int ssts = 0;
        for (final Path db : dbDirs(stateDir, storeName)) {
          for (final List<Path> files : dataSstFiles(db).values()) {
            for (final Path sst : files) {
              assertEquals(
                  Long.toHexString(magic), Long.toHexString(magic(sst)), "magic of " + sst);
              ssts++;
            }
          }
        }
        if (ssts > 0) {
          return ssts;
        }
      } catch (final UncheckedIOException | RocksDbError e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("store " + storeName + " has no data SST under " + stateDir);
      }
      sleep();
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(100);
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** RocksDB could not read a DB's metadata (of a live DB: it may be mid-change). */
  static final class RocksDbError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RocksDbError(final String message, final Throwable cause) {
      super(message, cause);
    }
  }
}

package dev.rocksdbcuckoo.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.rocksdb.AbstractNativeReference;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.CuckooOptionsUtil;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.StripedHashMemTableConfig;

/**
 * The options and Env of one test's DBs, made one of the three ways of {@link Mode}. Every DB it
 * opens has a single column family, "default". {@link #close()} closes the options, then the Env.
 */
final class Parts implements AutoCloseable {
  /** The by-name table factory of {@link Mode#BY_PROPERTIES}. */
  static final String PROPS_TABLE_FACTORY = "{id=CuckooHashTable;hash_table_ratio=0.8}";

  /** The by-name column family options of {@link Mode#BY_STRING}. */
  static final String STRING_CF_OPTIONS =
      "table_factory={id=CuckooHashTable;max_search_depth=64;checksum=kCRC32c};"
          + "memtable_factory={id=striped_hash;bucket_count=4096};"
          + "merge_operator=stringappend";

  final Mode mode;
  final AsyncExecutorEnv env;
  final DBOptions dbOptions;
  final ColumnFamilyOptions cfOptions;
  private final List<AbstractNativeReference> others = new ArrayList<>();

  private Parts(
      final Mode mode,
      final AsyncExecutorEnv env,
      final DBOptions dbOptions,
      final ColumnFamilyOptions cfOptions,
      final List<AbstractNativeReference> others) {
    this.mode = mode;
    this.env = env;
    this.dbOptions = dbOptions;
    this.cfOptions = cfOptions;
    this.others.addAll(others);
  }

  static Parts create(final Mode mode) throws RocksDBException {
    final List<AbstractNativeReference> others = new ArrayList<>();
    switch (mode) {
      case BY_CLASS:
        {
          final AsyncExecutorEnv env = new AsyncExecutorEnv();
          final StringAppendOperator merge = new StringAppendOperator();
          others.add(merge);
          final DBOptions db = new DBOptions().setCreateIfMissing(true).setEnv(env);
          final ColumnFamilyOptions cf =
              new ColumnFamilyOptions()
                  .setTableFormatConfig(new CuckooHashTableConfig())
                  .setMemTableConfig(new StripedHashMemTableConfig())
                  .setMergeOperator(merge);
          return new Parts(mode, env, db, cf, others);
        }
      case BY_PROPERTIES:
        {
          final AsyncExecutorEnv env = AsyncExecutorEnv.fromString("low_pri_threads=2");
          final ConfigOptions config = new ConfigOptions();
          others.add(config);
          final Properties dbProps = new Properties();
          dbProps.setProperty("create_if_missing", "true");
          final DBOptions db = DBOptions.getDBOptionsFromProps(config, dbProps);
          assertNotNull(db, "getDBOptionsFromProps refused " + dbProps);
          db.setEnv(env);
          final Properties cfProps = new Properties();
          cfProps.setProperty("table_factory", PROPS_TABLE_FACTORY);
          cfProps.setProperty("memtable_factory", "striped_hash");
          cfProps.setProperty("merge_operator", "stringappend");
          final ColumnFamilyOptions cf =
              ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, cfProps);
          assertNotNull(cf, "getColumnFamilyOptionsFromProps refused " + cfProps);
          return new Parts(mode, env, db, cf, others);
        }
      case BY_STRING:
        {
          final AsyncExecutorEnv env =
              AsyncExecutorEnv.fromString(
                  "id=AsyncExecutorEnv;low_pri_threads=2;high_pri_threads=1");
          final ConfigOptions config = new ConfigOptions();
          others.add(config);
          final DBOptions db =
              CuckooOptionsUtil.dbOptionsFromString(
                  config, "create_if_missing=true;max_background_jobs=4");
          db.setEnv(env);
          final ColumnFamilyOptions cf =
              CuckooOptionsUtil.columnFamilyOptionsFromString(config, STRING_CF_OPTIONS);
          return new Parts(mode, env, db, cf, others);
        }
      default:
        throw new AssertionError(mode);
    }
  }

  /** Checks, from the Java side, that the options name our factories. */
  void assertNamesOurFactories() {
    assertEquals(CuckooHashTableConfig.NAME, cfOptions.tableFactoryName());
    assertEquals(StripedHashMemTableConfig.NAME, cfOptions.memTableFactoryName());
  }

  /** Opens (creating if missing) the DB at {@code dir} with these options. */
  RocksDB open(final Path dir) throws RocksDBException {
    final List<ColumnFamilyDescriptor> descriptors =
        List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    return RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
  }

  /** {@link Options} combining these DB and column family options; closed with this. */
  Options options() {
    final Options options = new Options(dbOptions, cfOptions);
    others.add(options);
    return options;
  }

  /** Closes the options other than the DB and column family options. */
  void closeOthers() {
    for (final AbstractNativeReference other : others) {
      other.close();
    }
    others.clear();
  }

  @Override
  public void close() {
    closeOthers();
    cfOptions.close();
    dbOptions.close();
    env.close();
  }
}

package dev.rocksdbcuckoo.tests;

/** How a test sets rocksdb-cuckoo's three parts: the table format, the memtable and the Env. */
enum Mode {
  /**
   * {@code setTableFormatConfig(new CuckooHashTableConfig())}, {@code setMemTableConfig(new
   * StripedHashMemTableConfig())}, {@code setEnv(new AsyncExecutorEnv())}.
   */
  BY_CLASS,
  /**
   * Column family and DB options from {@code Properties} through RocksJava's own {@code
   * getColumnFamilyOptionsFromProps} / {@code getDBOptionsFromProps}, the Env from {@code
   * AsyncExecutorEnv.fromString}.
   */
  BY_PROPERTIES,
  /**
   * Column family and DB options from options strings through {@code CuckooOptionsUtil}, the Env
   * from {@code AsyncExecutorEnv.fromString} with its id.
   */
  BY_STRING
}

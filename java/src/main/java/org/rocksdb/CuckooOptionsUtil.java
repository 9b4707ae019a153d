// rocksdb-cuckoo: what RocksJava's OptionsUtil and by-name options lack for
// table formats other than BlockBasedTable.
package org.rocksdb;

import java.util.List;

/**
 * Options by name and from OPTIONS files, for DBs whose column families use
 * rocksdb-cuckoo's parts (or any registered part).
 *
 * <ul>
 *   <li>{@link #loadLatestOptions} and {@link #loadOptionsFromFile} do what
 *       {@link OptionsUtil}'s methods of the same names do, and also accept
 *       {@code CuckooHashTable} (and every other table factory): a column
 *       family's {@link ColumnFamilyOptions#tableFormatConfig()} is then a
 *       {@link CuckooHashTableConfig}, a {@link BlockBasedTableConfig}, or
 *       null for a factory Java has no class for.</li>
 *   <li>{@link #columnFamilyOptionsFromString} and
 *       {@link #dbOptionsFromString} throw {@link RocksDBException} with
 *       RocksDB's message where {@code getColumnFamilyOptionsFromProps} and
 *       {@code getDBOptionsFromProps} return null.</li>
 *   <li>{@link #setLegacyBackupFileNaming} sets the BackupEngine naming that
 *       works with every table format, which RocksJava cannot.</li>
 * </ul>
 */
public final class CuckooOptionsUtil {
  static {
    RocksDB.loadLibrary();
  }

  private CuckooOptionsUtil() {}

  /**
   * Reads the newest OPTIONS file of the DB at {@code dbPath}.
   *
   * @param configOptions how to parse it (ignore_unknown_options and so on)
   * @param dbPath the DB's folder
   * @param dbOptions filled with the DB's options
   * @param cfDescs filled with a descriptor per column family
   * @throws RocksDBException when RocksDB cannot read or parse the file
   */
  public static void loadLatestOptions(final ConfigOptions configOptions, final String dbPath,
      final DBOptions dbOptions, final List<ColumnFamilyDescriptor> cfDescs)
      throws RocksDBException {
    loadLatestOptions(
        configOptions.nativeHandle_, dbPath, dbOptions.nativeHandle_, cfDescs);
    fetchTableFormatConfigs(cfDescs);
  }

  /**
   * Reads the OPTIONS file {@code optionsFileName}.
   *
   * @param configOptions how to parse it
   * @param optionsFileName the file
   * @param dbOptions filled with the DB's options
   * @param cfDescs filled with a descriptor per column family
   * @throws RocksDBException when RocksDB cannot read or parse the file
   */
  public static void loadOptionsFromFile(final ConfigOptions configOptions,
      final String optionsFileName, final DBOptions dbOptions,
      final List<ColumnFamilyDescriptor> cfDescs) throws RocksDBException {
    loadOptionsFromFile(
        configOptions.nativeHandle_, optionsFileName, dbOptions.nativeHandle_, cfDescs);
    fetchTableFormatConfigs(cfDescs);
  }

  /**
   * Column family options from an options string, such as
   * {@code "table_factory={id=CuckooHashTable};memtable_factory=striped_hash"}.
   *
   * @param configOptions how to parse it
   * @param options the options string
   * @return new column family options (defaults, then {@code options})
   * @throws RocksDBException with RocksDB's message when it refuses the string
   */
  public static ColumnFamilyOptions columnFamilyOptionsFromString(
      final ConfigOptions configOptions, final String options) throws RocksDBException {
    final ColumnFamilyOptions result = new ColumnFamilyOptions();
    try {
      columnFamilyOptionsFromString(configOptions.nativeHandle_, options, result.nativeHandle_);
    } catch (final RocksDBException e) {
      result.close();
      throw e;
    }
    result.setFetchedTableFormatConfig(readTableFormatConfig(result.nativeHandle_));
    return result;
  }

  /**
   * DB options from an options string, such as {@code "max_background_jobs=4"}.
   *
   * @param configOptions how to parse it
   * @param options the options string
   * @return new DB options (defaults, then {@code options})
   * @throws RocksDBException with RocksDB's message when it refuses the string
   */
  public static DBOptions dbOptionsFromString(
      final ConfigOptions configOptions, final String options) throws RocksDBException {
    final DBOptions result = new DBOptions();
    try {
      dbOptionsFromString(configOptions.nativeHandle_, options, result.nativeHandle_);
    } catch (final RocksDBException e) {
      result.close();
      throw e;
    }
    return result;
  }

  /**
   * Names backed-up table files by their CRC32c and size. BackupEngine's
   * default naming ({@code kUseDbSessionId}, RocksDB 9.x and later) reads
   * each file's properties through a BlockBasedTable-only path and refuses
   * CuckooHashTable files, so no backup is recorded; RocksJava has no setter
   * for {@code share_files_with_checksum_naming}.
   *
   * @param options the BackupEngine options to change
   * @return {@code options}
   */
  public static BackupEngineOptions setLegacyBackupFileNaming(final BackupEngineOptions options) {
    setLegacyBackupFileNaming(options.nativeHandle_);
    return options;
  }

  private static void fetchTableFormatConfigs(final List<ColumnFamilyDescriptor> cfDescs) {
    for (final ColumnFamilyDescriptor descriptor : cfDescs) {
      @SuppressWarnings("PMD.CloseResource")
      final ColumnFamilyOptions options = descriptor.getOptions();
      options.setFetchedTableFormatConfig(readTableFormatConfig(options.nativeHandle_));
    }
  }

  private static native void loadLatestOptions(long cfgHandle, String dbPath,
      long dbOptionsHandle, List<ColumnFamilyDescriptor> cfDescs) throws RocksDBException;
  private static native void loadOptionsFromFile(long cfgHandle, String optionsFileName,
      long dbOptionsHandle, List<ColumnFamilyDescriptor> cfDescs) throws RocksDBException;
  // Parse `options` over default options into the object at `resultHandle`.
  private static native void columnFamilyOptionsFromString(
      long cfgHandle, String options, long resultHandle) throws RocksDBException;
  private static native void dbOptionsFromString(
      long cfgHandle, String options, long resultHandle) throws RocksDBException;
  private static native void setLegacyBackupFileNaming(long backupEngineOptionsHandle);
  // A CuckooHashTableConfig or BlockBasedTableConfig describing the column
  // family's table factory; null for a factory Java has no class for.
  private static native TableFormatConfig readTableFormatConfig(long cfOptionsHandle);
}

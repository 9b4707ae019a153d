// rocksdb-cuckoo: the CuckooHashTable SST format for RocksJava.
package org.rocksdb;

/**
 * Configures rocksdb-cuckoo's {@code CuckooHashTable}, a hash table SST
 * format for point lookups, compiled into this rocksdbjni build. Pass it to
 * {@link Options#setTableFormatConfig} or
 * {@link ColumnFamilyOptions#setTableFormatConfig}; by name it is
 * {@code table_factory={id=CuckooHashTable;...}}.
 *
 * <p>Every setter checks the whole configuration with the native factory
 * (the same checks as an options string or OPTIONS file) and throws
 * {@link IllegalArgumentException} carrying RocksDB's message when a value is
 * refused; the configuration then keeps its earlier value.
 */
public class CuckooHashTableConfig extends TableFormatConfig {
  static {
    RocksDB.loadLibrary();
  }

  /** The id users type in options strings and OPTIONS files carry. */
  public static final String NAME = "CuckooHashTable";

  private double hashTableRatio;
  private boolean identityAsFirstHash;
  private int maxSearchDepth;
  private boolean slotOrdered;
  private ChecksumType checksumType;
  private boolean loadInBackground;

  /** The defaults: those of a native factory made with no options. */
  public CuckooHashTableConfig() {
    this(parse(""));
  }

  private CuckooHashTableConfig(final CuckooHashTableConfig other) {
    hashTableRatio = other.hashTableRatio;
    identityAsFirstHash = other.identityAsFirstHash;
    maxSearchDepth = other.maxSearchDepth;
    slotOrdered = other.slotOrdered;
    checksumType = other.checksumType;
    loadInBackground = other.loadInBackground;
  }

  // Called from native code to describe a factory read from an OPTIONS file.
  CuckooHashTableConfig(final double hashTableRatio, final boolean identityAsFirstHash,
      final int maxSearchDepth, final boolean slotOrdered, final byte checksumType,
      final boolean loadInBackground) {
    this.hashTableRatio = hashTableRatio;
    this.identityAsFirstHash = identityAsFirstHash;
    this.maxSearchDepth = maxSearchDepth;
    this.slotOrdered = slotOrdered;
    for (final ChecksumType type : ChecksumType.values()) {
      if (type.getValue() == checksumType) {
        this.checksumType = type;
      }
    }
    this.loadInBackground = loadInBackground;
  }

  /**
   * A configuration from an options string such as
   * {@code "hash_table_ratio=0.8;checksum=kCRC32c"}, parsed and checked by
   * RocksDB.
   *
   * @param options the table's options, as inside {@code {id=CuckooHashTable;...}}
   * @return the configuration
   * @throws IllegalArgumentException with RocksDB's message for an unknown
   *     option or a value out of range
   */
  public static CuckooHashTableConfig fromString(final String options) {
    return parse(options);
  }

  /** @return fraction of hash slots that hold a key, in (0, 1) */
  public double hashTableRatio() {
    return hashTableRatio;
  }

  /**
   * @param hashTableRatio fraction of hash slots that hold a key, in (0, 1)
   * @return this
   */
  public CuckooHashTableConfig setHashTableRatio(final double hashTableRatio) {
    final double old = this.hashTableRatio;
    this.hashTableRatio = hashTableRatio;
    checkOrUndo(() -> this.hashTableRatio = old);
    return this;
  }

  /** @return whether a key's first 8 bytes (big-endian) are its first bucket */
  public boolean identityAsFirstHash() {
    return identityAsFirstHash;
  }

  /**
   * @param identityAsFirstHash use a key's first 8 bytes, read big-endian, as
   *     its first bucket (integer keys)
   * @return this
   */
  public CuckooHashTableConfig setIdentityAsFirstHash(final boolean identityAsFirstHash) {
    this.identityAsFirstHash = identityAsFirstHash;
    return this;
  }

  /** @return longest eviction chain tried while placing one key */
  public int maxSearchDepth() {
    return maxSearchDepth;
  }

  /**
   * @param maxSearchDepth longest eviction chain tried while placing one key
   * @return this
   */
  public CuckooHashTableConfig setMaxSearchDepth(final int maxSearchDepth) {
    final int old = this.maxSearchDepth;
    this.maxSearchDepth = maxSearchDepth;
    checkOrUndo(() -> this.maxSearchDepth = old);
    return this;
  }

  /** @return whether fixed-size entries are stored in hash-slot order */
  public boolean slotOrdered() {
    return slotOrdered;
  }

  /**
   * @param slotOrdered store fixed-size entries in hash-slot order (one
   *     memory round trip per lookup instead of two)
   * @return this
   */
  public CuckooHashTableConfig setSlotOrdered(final boolean slotOrdered) {
    this.slotOrdered = slotOrdered;
    return this;
  }

  /** @return the file's checksum */
  public ChecksumType checksumType() {
    return checksumType;
  }

  /**
   * @param checksumType kXXH3 (default), kCRC32c or kNoChecksum
   * @return this
   */
  public CuckooHashTableConfig setChecksumType(final ChecksumType checksumType) {
    final ChecksumType old = this.checksumType;
    this.checksumType = checksumType;
    checkOrUndo(() -> this.checksumType = old);
    return this;
  }

  /** @return whether a background thread reads the rest of a looked-up file */
  public boolean loadInBackground() {
    return loadInBackground;
  }

  /**
   * @param loadInBackground with mmap reads off, read the rest of a file in
   *     the background once lookups reach it
   * @return this
   */
  public CuckooHashTableConfig setLoadInBackground(final boolean loadInBackground) {
    this.loadInBackground = loadInBackground;
    return this;
  }

  /**
   * @return the options string of this configuration, as inside
   *     {@code {id=CuckooHashTable;...}}
   */
  @Override
  public String toString() {
    return "hash_table_ratio=" + hashTableRatio + ";identity_as_first_hash=" + identityAsFirstHash
        + ";max_search_depth=" + Integer.toUnsignedString(maxSearchDepth)
        + ";slot_ordered=" + slotOrdered + ";checksum=" + checksumName(checksumType)
        + ";load_in_background=" + loadInBackground;
  }

  @Override
  protected long newTableFactoryHandle() {
    return newTableFactory(toString());
  }

  // RocksDB's names for checksums (those of BlockBasedTableOptions).
  private static String checksumName(final ChecksumType type) {
    switch (type) {
      case kNoChecksum:
        return "kNoChecksum";
      case kCRC32c:
        return "kCRC32c";
      case kxxHash:
        return "kxxHash";
      case kxxHash64:
        return "kxxHash64";
      default:
        return "kXXH3";
    }
  }

  private void checkOrUndo(final Runnable undo) {
    try {
      parse(toString());
    } catch (final IllegalArgumentException e) {
      undo.run();
      throw e;
    }
  }

  // Makes a factory configured from `options`; throws IllegalArgumentException
  // with RocksDB's message when it refuses them.
  private static native long newTableFactory(String options);
  // The configuration of a factory made from `options`, with the same checks.
  private static native CuckooHashTableConfig parse(String options);
}

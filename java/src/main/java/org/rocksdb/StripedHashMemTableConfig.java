// rocksdb-cuckoo: the striped_hash memtable for RocksJava.
package org.rocksdb;

/**
 * Configures rocksdb-cuckoo's {@code striped_hash} memtable: a hash-indexed
 * memtable with concurrent inserts whose statistics counters are striped per
 * last-level cache or per core. Pass it to {@link Options#setMemTableConfig}
 * or {@link ColumnFamilyOptions#setMemTableConfig}; by name it is
 * {@code memtable_factory=striped_hash} or
 * {@code memtable_factory={id=striped_hash;...}}.
 *
 * <p>Every setter checks the whole configuration with the native factory and
 * throws {@link IllegalArgumentException} carrying RocksDB's message when a
 * value is refused; the configuration then keeps its earlier value.
 */
public class StripedHashMemTableConfig extends MemTableConfig {
  static {
    RocksDB.loadLibrary();
  }

  /** The id users type in options strings and OPTIONS files carry. */
  public static final String NAME = "striped_hash";

  /** How the statistics counters are spread over cache lines. */
  public enum StripeMode {
    /** One stripe per last-level cache. */
    LLC("llc"),
    /** One stripe per logical CPU. */
    CORE("core"),
    /** One shared counter (the baseline). */
    NONE("none"),
    /** LLC where the machine has several last-level caches, else CORE. */
    AUTO("auto");

    private final String optionValue;

    StripeMode(final String optionValue) {
      this.optionValue = optionValue;
    }

    /** @return the value an options string carries */
    public String optionValue() {
      return optionValue;
    }
  }

  private long bucketCount;
  private double maxLoadFactor;
  private StripeMode stripeMode;
  private long entrySlabSize;

  /** The defaults: those of a native factory made with no options. */
  public StripedHashMemTableConfig() {
    this(parse(""));
  }

  private StripedHashMemTableConfig(final StripedHashMemTableConfig other) {
    bucketCount = other.bucketCount;
    maxLoadFactor = other.maxLoadFactor;
    stripeMode = other.stripeMode;
    entrySlabSize = other.entrySlabSize;
  }

  /**
   * A configuration from an options string such as
   * {@code "bucket_count=65536;stripe_mode=core"}, parsed and checked by
   * RocksDB.
   *
   * @param options the memtable's options, as inside {@code {id=striped_hash;...}}
   * @return the configuration
   * @throws IllegalArgumentException with RocksDB's message for an unknown
   *     option or a value out of range
   */
  public static StripedHashMemTableConfig fromString(final String options) {
    return parse(options);
  }

  // Called from native code with a factory's options.
  StripedHashMemTableConfig(final long bucketCount, final double maxLoadFactor,
      final String stripeMode, final long entrySlabSize) {
    this.bucketCount = bucketCount;
    this.maxLoadFactor = maxLoadFactor;
    for (final StripeMode mode : StripeMode.values()) {
      if (mode.optionValue.equals(stripeMode)) {
        this.stripeMode = mode;
      }
    }
    this.entrySlabSize = entrySlabSize;
  }

  /** @return hash slots each new memtable starts with */
  public long bucketCount() {
    return bucketCount;
  }

  /**
   * @param bucketCount hash slots each new memtable starts with, in [16, 2^30]
   * @return this
   */
  public StripedHashMemTableConfig setBucketCount(final long bucketCount) {
    final long old = this.bucketCount;
    this.bucketCount = bucketCount;
    checkOrUndo(() -> this.bucketCount = old);
    return this;
  }

  /** @return fraction of slots in use before the index doubles */
  public double maxLoadFactor() {
    return maxLoadFactor;
  }

  /**
   * @param maxLoadFactor fraction of slots in use before the index doubles,
   *     in [0.25, 0.9]
   * @return this
   */
  public StripedHashMemTableConfig setMaxLoadFactor(final double maxLoadFactor) {
    final double old = this.maxLoadFactor;
    this.maxLoadFactor = maxLoadFactor;
    checkOrUndo(() -> this.maxLoadFactor = old);
    return this;
  }

  /** @return how the statistics counters are striped */
  public StripeMode stripeMode() {
    return stripeMode;
  }

  /**
   * @param stripeMode how the statistics counters are striped
   * @return this
   */
  public StripedHashMemTableConfig setStripeMode(final StripeMode stripeMode) {
    final StripeMode old = this.stripeMode;
    this.stripeMode = stripeMode;
    checkOrUndo(() -> this.stripeMode = old);
    return this;
  }

  /** @return size of the huge-page slabs entries go into; 0: the arena */
  public long entrySlabSize() {
    return entrySlabSize;
  }

  /**
   * @param entrySlabSize 0 (entries in the memtable's arena) or a slab size
   *     in [4 MiB, 1 GiB], at most write_buffer_size / 8
   * @return this
   */
  public StripedHashMemTableConfig setEntrySlabSize(final long entrySlabSize) {
    final long old = this.entrySlabSize;
    this.entrySlabSize = entrySlabSize;
    checkOrUndo(() -> this.entrySlabSize = old);
    return this;
  }

  /**
   * @return the options string of this configuration, as inside
   *     {@code {id=striped_hash;...}}
   */
  @Override
  public String toString() {
    return "bucket_count=" + Long.toUnsignedString(bucketCount)
        + ";max_load_factor=" + maxLoadFactor + ";stripe_mode=" + stripeMode.optionValue
        + ";entry_slab_size=" + Long.toUnsignedString(entrySlabSize);
  }

  @Override
  protected long newMemTableFactoryHandle() {
    return newMemTableFactory(toString());
  }

  private void checkOrUndo(final Runnable undo) {
    try {
      parse(toString());
    } catch (final IllegalArgumentException e) {
      undo.run();
      throw e;
    }
  }

  private static native long newMemTableFactory(String options);
  // The configuration of a factory made from `options`, with the same checks.
  private static native StripedHashMemTableConfig parse(String options);
}

package dev.rocksdbcuckoo.kafka;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.AsyncExecutorEnv;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.Options;
import org.rocksdb.StripedHashMemTableConfig;

/**
 * Puts every Kafka Streams RocksDB store on rocksdb-cuckoo: the
 * {@code CuckooHashTable} SST format, the {@code striped_hash} memtable and
 * one shared {@code AsyncExecutorEnv}. Name it in the Streams config:
 *
 * <pre>
 * rocksdb.config.setter=dev.rocksdbcuckoo.kafka.CuckooRocksDBConfigSetter
 * </pre>
 *
 * <p>Each part is configured by a key of the Streams config whose value is
 * the part's RocksDB options string (as inside {@code {id=...;...}}), empty
 * for the defaults, or {@code none} to leave Kafka Streams' choice alone:
 *
 * <ul>
 *   <li>{@value #TABLE_CONFIG} (default {@code ""}): e.g.
 *       {@code hash_table_ratio=0.8;checksum=kCRC32c}; {@code none} keeps
 *       Kafka Streams' BlockBasedTable with its block cache and Bloom filter.
 *   <li>{@value #MEMTABLE_CONFIG} (default {@code ""}): e.g.
 *       {@code bucket_count=65536;stripe_mode=core}; {@code none} keeps the
 *       skip list.
 *   <li>{@value #ENV_CONFIG} (default {@code ""}): e.g.
 *       {@code low_pri_threads=4;fair_share=false}; {@code none} keeps the
 *       default Env.
 * </ul>
 *
 * <p>A value RocksDB refuses fails the store's open with a
 * {@link ConfigException} that names the key and carries RocksDB's message
 * (its cause is RocksDB's {@link IllegalArgumentException}).
 *
 * <p>The Env is shared: all stores of the JVM whose {@value #ENV_CONFIG}
 * value is the same use one {@link AsyncExecutorEnv}, so that their flushes
 * and compactions take fair turns on one set of threads. It is made by the
 * first store that opens and closed by {@link #close} of the last one.
 * Kafka Streams calls {@code close} before it closes the DB, which is safe:
 * the native Env lives until the last DB using it has closed. Its pools start
 * with the sizes RocksDB asks for at {@code DB::Open} (from
 * {@code max_background_jobs}, which Kafka Streams sets to the core count),
 * unless the options string sets them.
 *
 * <p>Kafka Streams makes one instance of this class per store (per segment of
 * a window or session store) and calls {@link #setConfig} once and
 * {@link #close} once on it.
 */
public class CuckooRocksDBConfigSetter implements RocksDBConfigSetter {
  /** Key of the CuckooHashTable options string, or {@code none}. */
  public static final String TABLE_CONFIG = "rocksdb.cuckoo.table";
  /** Key of the striped_hash options string, or {@code none}. */
  public static final String MEMTABLE_CONFIG = "rocksdb.cuckoo.memtable";
  /** Key of the AsyncExecutorEnv options string, or {@code none}. */
  public static final String ENV_CONFIG = "rocksdb.cuckoo.env";
  /** The value that keeps Kafka Streams' own choice for a part. */
  public static final String NONE = "none";

  // The options string of the shared Env this store holds; null when none.
  private String heldEnv;

  @Override
  public void setConfig(
      final String storeName, final Options options, final Map<String, Object> configs) {
    final String table = value(configs, TABLE_CONFIG);
    final String memtable = value(configs, MEMTABLE_CONFIG);
    final String env = value(configs, ENV_CONFIG);

    // Everything is parsed (the Env made or found) before anything is set,
    // so that a bad value leaves the options as Kafka Streams made them and
    // holds no Env.
    final CuckooHashTableConfig tableConfig =
        isNone(table) ? null : parse(TABLE_CONFIG, table, CuckooHashTableConfig::fromString);
    final StripedHashMemTableConfig memtableConfig =
        isNone(memtable)
            ? null
            : parse(MEMTABLE_CONFIG, memtable, StripedHashMemTableConfig::fromString);
    if (memtableConfig != null) {
      checkSlabFits(memtable, memtableConfig, options.writeBufferSize());
    }

    final AsyncExecutorEnv sharedEnv = isNone(env) ? null : SharedEnvs.acquire(env, ENV_CONFIG);

    if (tableConfig != null) {
      // Replaces Kafka Streams' BlockBasedTableConfig; its metrics then see
      // no block cache, as with any non-block-based table.
      options.setTableFormatConfig(tableConfig);
    }
    if (memtableConfig != null) {
      options.setMemTableConfig(memtableConfig);
    }
    if (sharedEnv != null) {
      releaseEnv();
      options.setEnv(sharedEnv);
      heldEnv = env;
    }
  }

  @Override
  public void close(final String storeName, final Options options) {
    releaseEnv();
  }

  private void releaseEnv() {
    if (heldEnv != null) {
      SharedEnvs.release(heldEnv);
      heldEnv = null;
    }
  }

  private static String value(final Map<String, Object> configs, final String key) {
    return Objects.toString(configs.get(key), "").trim();
  }

  private static boolean isNone(final String value) {
    return value.toLowerCase(Locale.ROOT).equals(NONE);
  }

  /** RocksDB's parse of one part's options string, its refusal as a ConfigException. */
  static <T> T parse(
      final String key, final String value, final Function<String, T> parser) {
    try {
      return parser.apply(value);
    } catch (final IllegalArgumentException e) {
      final ConfigException refused = new ConfigException(key, value, e.getMessage());
      refused.initCause(e);
      throw refused;
    }
  }

  // DB::Open refuses a slab above write_buffer_size / 8 (Kafka Streams' 16 MiB
  // buffers admit none, slabs start at 4 MiB); saying so here names the key
  // instead of failing the open with a bare RocksDB status.
  private static void checkSlabFits(
      final String value, final StripedHashMemTableConfig config, final long writeBufferSize) {
    final long slab = config.entrySlabSize();
    if (slab != 0 && Long.compareUnsigned(slab, writeBufferSize / 8) > 0) {
      throw new ConfigException(
          MEMTABLE_CONFIG,
          value,
          "entry_slab_size "
              + Long.toUnsignedString(slab)
              + " exceeds write_buffer_size / 8 = "
              + writeBufferSize / 8
              + " (the store's write_buffer_size is "
              + writeBufferSize
              + "); leave entry_slab_size at 0 for Kafka Streams' stores");
    }
  }
}

package dev.rocksdbcuckoo.kafka;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/** The two store configurations every topology runs under. */
enum StoreConfig {
  /** {@link CuckooRocksDBConfigSetter} with its defaults. */
  CUCKOO,
  /** Kafka Streams' own RocksDB options: no config setter. */
  DEFAULT;

  /** Streams properties for a TopologyTestDriver whose state lives in {@code stateDir}. */
  Properties props(final String applicationId, final Path stateDir) {
    return props(applicationId, stateDir, Map.of());
  }

  /** As {@link #props(String, Path)}, plus {@code extra}. */
  Properties props(final String applicationId, final Path stateDir, final Map<String, ?> extra) {
    final Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    if (this == CUCKOO) {
      props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, CuckooRocksDBConfigSetter.class);
    }
    props.putAll(extra);
    return props;
  }

  /** Asserts from the closed store's files that it ran this configuration. */
  int assertStoreRan(final Path stateDir, final String storeName) {
    return this == CUCKOO
        ? StoreFiles.assertCuckooStore(stateDir, storeName)
        : StoreFiles.assertDefaultStore(stateDir, storeName);
  }
}

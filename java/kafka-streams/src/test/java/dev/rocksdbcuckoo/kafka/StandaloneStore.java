package dev.rocksdbcuckoo.kafka;

import java.io.File;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A Kafka Streams RocksDB key-value store ({@code RocksDBStore}, from
 * {@link Stores#persistentKeyValueStore}) opened outside a driver, with a
 * mock task context: it opens, restores and closes as under a stream
 * thread, and its files stay after it closes (a TopologyTestDriver deletes
 * them).
 */
final class StandaloneStore implements AutoCloseable {
  private final KeyValueStore<Bytes, byte[]> store;
  private final StateRestoreCallback restoreCallback;

  private StandaloneStore(final KeyValueStore<Bytes, byte[]> store,
      final StateRestoreCallback restoreCallback) {
    this.store = store;
    this.restoreCallback = restoreCallback;
  }

  /** Opens store {@code name} of task 0_0 in {@code stateDir}, under {@code config}. */
  static StandaloneStore open(final StoreConfig config, final String applicationId,
      final Path stateDir, final String name, final Map<String, ?> extra) {
    final Map<String, Object> props = new HashMap<>(extra);
    // Required by StreamsConfig, never contacted.
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "dummy:1234");
    final MockProcessorContext<Void, Void> mock = new MockProcessorContext<>(
        config.props(applicationId, stateDir, props), new TaskId(0, 0), stateDir.toFile());
    final CapturingContext context = new CapturingContext(mock.getStateStoreContext());
    final KeyValueStore<Bytes, byte[]> store = Stores.persistentKeyValueStore(name).get();
    store.init(context, store);
    return new StandaloneStore(store, context.restoreCallback);
  }

  KeyValueStore<Bytes, byte[]> store() {
    return store;
  }

  /** What the store registered for its changelog's records. */
  StateRestoreCallback restoreCallback() {
    return restoreCallback;
  }

  /** {@code RocksDBStore.close()}: the config setter's close, then the DB's. */
  @Override
  public void close() {
    store.close();
  }

  /** The mock's store context, keeping the restore callback a store registers. */
  private static final class CapturingContext implements StateStoreContext {
    private final StateStoreContext delegate;
    private StateRestoreCallback restoreCallback;

    CapturingContext(final StateStoreContext delegate) {
      this.delegate = delegate;
    }

    @Override
    public void register(final StateStore store, final StateRestoreCallback callback) {
      restoreCallback = callback;
      delegate.register(store, callback);
    }

    @Override
    public void register(final StateStore store, final StateRestoreCallback callback,
        final CommitCallback onCommit) {
      restoreCallback = callback;
      delegate.register(store, callback, onCommit);
    }

    @Override
    public String applicationId() {
      return delegate.applicationId();
    }

    @Override
    public TaskId taskId() {
      return delegate.taskId();
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
      return delegate.recordMetadata();
    }

    @Override
    public Serde<?> keySerde() {
      return delegate.keySerde();
    }

    @Override
    public Serde<?> valueSerde() {
      return delegate.valueSerde();
    }

    @Override
    public File stateDir() {
      return delegate.stateDir();
    }

    @Override
    public StreamsMetrics metrics() {
      return delegate.metrics();
    }

    @Override
    public Map<String, Object> appConfigs() {
      return delegate.appConfigs();
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(final String prefix) {
      return delegate.appConfigsWithPrefix(prefix);
    }
  }
}

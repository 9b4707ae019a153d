package dev.rocksdbcuckoo.kafka;

import java.util.HashMap;
import java.util.Map;
import org.rocksdb.AsyncExecutorEnv;

/**
 * The JVM's shared {@link AsyncExecutorEnv}s, one per options string, each
 * counted by the stores holding it and closed when the last one lets go.
 */
final class SharedEnvs {
  private static final class Shared {
    final AsyncExecutorEnv env;
    int holders;

    Shared(final AsyncExecutorEnv env) {
      this.env = env;
    }
  }

  private static final Map<String, Shared> ENVS = new HashMap<>();

  private SharedEnvs() {}

  /**
   * The Env for {@code options}, made on first use.
   *
   * @param key the config key the options came from, named when RocksDB refuses them
   */
  static synchronized AsyncExecutorEnv acquire(final String options, final String key) {
    Shared shared = ENVS.get(options);
    if (shared == null) {
      shared = new Shared(CuckooRocksDBConfigSetter.parse(key, options,
          s -> s.isEmpty() ? new AsyncExecutorEnv() : AsyncExecutorEnv.fromString(s)));
      ENVS.put(options, shared);
    }
    shared.holders++;
    return shared.env;
  }

  /** Lets go of the Env for {@code options}; the last holder closes it. */
  static synchronized void release(final String options) {
    final Shared shared = ENVS.get(options);
    if (--shared.holders == 0) {
      ENVS.remove(options);
      // Safe while DBs still use it: the native Env outlives the Java object
      // until the last of them closes.
      shared.env.close();
    }
  }

  /** How many stores hold the Env for {@code options}; 0 when there is none. */
  static synchronized int holders(final String options) {
    final Shared shared = ENVS.get(options);
    return shared == null ? 0 : shared.holders;
  }
}

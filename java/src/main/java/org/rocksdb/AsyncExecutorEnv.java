// rocksdb-cuckoo: AsyncExecutorEnv for RocksJava.
package org.rocksdb;

/**
 * rocksdb-cuckoo's {@code AsyncExecutorEnv}: an {@link Env} whose background
 * thread pools are one task executor, so that scheduling a flush or a
 * compaction never blocks and DBs sharing the Env take fair turns. Files and
 * clocks are those of the default Env. Set it with {@link DBOptions#setEnv}
 * or {@link Options#setEnv}; one instance may serve many DBs.
 *
 * <p>{@link #close()} may come before or after the DBs using it close: while
 * a DB opened with it is open (it holds a column family's data paths or its
 * LOCK file through the Env), the native Env stays alive, and the last DB to
 * close ends it. Opening a new DB with a closed Env is an error, as for every
 * RocksJava object.
 */
public class AsyncExecutorEnv extends Env {
  static {
    RocksDB.loadLibrary();
  }

  /** The id users type: {@code env_uri=AsyncExecutorEnv} in C++ tools. */
  public static final String NAME = "AsyncExecutorEnv";

  /** An Env with the default options. */
  public AsyncExecutorEnv() {
    this(new AsyncExecutorEnvConfig());
  }

  /**
   * @param config the Env's options
   * @throws IllegalArgumentException with RocksDB's message for a value out of range
   */
  public AsyncExecutorEnv(final AsyncExecutorEnvConfig config) {
    super(newEnv(config.toString()));
  }

  private AsyncExecutorEnv(final long handle) {
    super(handle);
  }

  /**
   * An Env from an options string such as
   * {@code "low_pri_threads=4;fair_share=false"} (an {@code id=AsyncExecutorEnv}
   * in it is accepted), parsed and checked by RocksDB.
   *
   * @param options the Env's options
   * @return a new Env
   * @throws IllegalArgumentException with RocksDB's message for an unknown
   *     option or a value out of range
   */
  public static AsyncExecutorEnv fromString(final String options) {
    return new AsyncExecutorEnv(newEnv(options));
  }

  /** @return the options the Env runs with */
  public AsyncExecutorEnvConfig config() {
    return config(nativeHandle_);
  }

  /** @return a line per pool (BOTTOM, LOW, HIGH, USER) with its queue, wait and run statistics */
  public String statsString() {
    return statsString(nativeHandle_);
  }

  /**
   * @return how many column families of open DBs, and DB locks, hold the
   *     native Env (it outlives {@link #close()} while any does)
   */
  public long users() {
    return users(nativeHandle_);
  }

  @Override
  protected final void disposeInternal(final long handle) {
    release(handle);
  }

  private static native long newEnv(String options);
  private static native AsyncExecutorEnvConfig config(long handle);
  private static native String statsString(long handle);
  private static native long users(long handle);
  private static native void release(long handle);
}

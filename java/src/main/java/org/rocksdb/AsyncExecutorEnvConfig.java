// rocksdb-cuckoo: the options of AsyncExecutorEnv for RocksJava.
package org.rocksdb;

/**
 * The options of an {@link AsyncExecutorEnv}, read when the Env is made. A
 * plain value: the checks run in {@link AsyncExecutorEnv#AsyncExecutorEnv(AsyncExecutorEnvConfig)},
 * which throws {@link IllegalArgumentException} with RocksDB's message.
 */
public class AsyncExecutorEnvConfig {
  private int highPriThreads = 0;
  private int lowPriThreads = 0;
  private int bottomPriThreads = 0;
  private int userPriThreads = 0;
  private boolean fairShare = true;
  private boolean starvationHelper = true;
  private String statsFile = "";

  /** The defaults, as in C++ (AsyncExecutorEnvOptions). */
  public AsyncExecutorEnvConfig() {}

  AsyncExecutorEnvConfig(final int highPriThreads, final int lowPriThreads,
      final int bottomPriThreads, final int userPriThreads, final boolean fairShare,
      final boolean starvationHelper, final String statsFile) {
    this.highPriThreads = highPriThreads;
    this.lowPriThreads = lowPriThreads;
    this.bottomPriThreads = bottomPriThreads;
    this.userPriThreads = userPriThreads;
    this.fairShare = fairShare;
    this.starvationHelper = starvationHelper;
    this.statsFile = statsFile;
  }

  /** @return threads the HIGH pool starts with */
  public int highPriThreads() {
    return highPriThreads;
  }

  /**
   * @param threads threads the HIGH pool starts with, in [0, 1024]
   * @return this
   */
  public AsyncExecutorEnvConfig setHighPriThreads(final int threads) {
    highPriThreads = threads;
    return this;
  }

  /** @return threads the LOW pool starts with */
  public int lowPriThreads() {
    return lowPriThreads;
  }

  /**
   * @param threads threads the LOW pool starts with, in [0, 1024]
   * @return this
   */
  public AsyncExecutorEnvConfig setLowPriThreads(final int threads) {
    lowPriThreads = threads;
    return this;
  }

  /** @return threads the BOTTOM pool starts with */
  public int bottomPriThreads() {
    return bottomPriThreads;
  }

  /**
   * @param threads threads the BOTTOM pool starts with, in [0, 1024]
   * @return this
   */
  public AsyncExecutorEnvConfig setBottomPriThreads(final int threads) {
    bottomPriThreads = threads;
    return this;
  }

  /** @return threads the USER pool starts with */
  public int userPriThreads() {
    return userPriThreads;
  }

  /**
   * @param threads threads the USER pool starts with, in [0, 1024]
   * @return this
   */
  public AsyncExecutorEnvConfig setUserPriThreads(final int threads) {
    userPriThreads = threads;
    return this;
  }

  /** @return whether DBs sharing a pool take fair turns */
  public boolean fairShare() {
    return fairShare;
  }

  /**
   * @param fairShare fair turns between DBs within a pool (false: FIFO)
   * @return this
   */
  public AsyncExecutorEnvConfig setFairShare(final boolean fairShare) {
    this.fairShare = fairShare;
    return this;
  }

  /** @return whether a starved DB's job may run one thread beyond a pool's count */
  public boolean starvationHelper() {
    return starvationHelper;
  }

  /**
   * @param starvationHelper let a DB with nothing running run a job while
   *     other DBs' long jobs hold every thread of a pool
   * @return this
   */
  public AsyncExecutorEnvConfig setStarvationHelper(final boolean starvationHelper) {
    this.starvationHelper = starvationHelper;
    return this;
  }

  /** @return the file the statistics are appended to when the Env ends; "" for none */
  public String statsFile() {
    return statsFile;
  }

  /**
   * @param statsFile file the executor's statistics are appended to when the
   *     Env is destroyed; "" for none
   * @return this
   */
  public AsyncExecutorEnvConfig setStatsFile(final String statsFile) {
    this.statsFile = statsFile;
    return this;
  }

  /** @return the options string of this configuration, as after {@code id=AsyncExecutorEnv;} */
  @Override
  public String toString() {
    return "high_pri_threads=" + highPriThreads + ";low_pri_threads=" + lowPriThreads
        + ";bottom_pri_threads=" + bottomPriThreads + ";user_pri_threads=" + userPriThreads
        + ";fair_share=" + fairShare + ";starvation_helper=" + starvationHelper
        + ";stats_file={" + statsFile + "}";
  }
}

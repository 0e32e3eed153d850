package io.allot.store.redis;

import io.allot.testkit.TestServers;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * Two stores on one Redis server or cluster, as two processes would have them, used in turn ({@link #next()}), and a
 * raw connection to look at the keys: what the role contract tests of the Redis store share. Not thread-safe (JUnit
 * runs a class's lifecycle methods and tests on one thread).
 */
final class RedisClients implements AutoCloseable {
  final RedisStore store;
  final RedisStore peer;
  final RawRedis rawRedis;
  final RedisClusterCommands<String, String> raw;
  private boolean flip;

  private RedisClients(RedisStore store, RedisStore peer, RawRedis rawRedis) {
    this.store = store;
    this.peer = peer;
    this.rawRedis = rawRedis;
    this.raw = rawRedis.commands();
  }

  static RedisClients connect(String uri) {
    return new RedisClients(RedisStore.connect(RedisStoreConfig.fromUri(uri)),
        RedisStore.connect(RedisStoreConfig.fromUri(uri)), RawRedis.connect(uri));
  }

  /**
   * The clients of the throwaway Redis Cluster of {@link TestServers#redisClusterUri()}, checked to be a cluster (so a
   * cluster test never passes on a single server).
   */
  static RedisClients connectCluster() {
    RedisClients clients = connect(TestServers.redisClusterUri());
    if (!clients.store.config().cluster()) {
      clients.close();
      throw new IllegalStateException("not a Redis Cluster: " + clients.store.describe());
    }
    return clients;
  }

  /** The store and its peer in turn. */
  RedisStore next() {
    flip = !flip;
    return flip ? store : peer;
  }

  @Override
  public void close() {
    for (AutoCloseable c : new AutoCloseable[] {store, peer, rawRedis}) {
      try {
        c.close();
      } catch (Exception e) {
        // closing in a test teardown: nothing to do
      }
    }
  }
}

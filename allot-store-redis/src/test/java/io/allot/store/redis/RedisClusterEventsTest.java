package io.allot.store.redis;

import io.allot.testkit.TestServers;

/** The events contract (and {@link RedisEventsTest}'s own tests) on the throwaway Redis Cluster of {@link TestServers}. */
class RedisClusterEventsTest extends RedisEventsTest {
  @Override
  RedisClients connect() {
    return RedisClients.connectCluster();
  }
}

package io.allot.store.redis;

import io.allot.store.StoreClock;
import java.util.List;

/** {@link StoreClock} on Redis {@code TIME} (in Cluster: the time of the node that answers). */
final class RedisClock implements StoreClock {
  private final RedisConnection redis;

  RedisClock(RedisConnection redis) {
    this.redis = redis;
  }

  @Override
  public long timeMillis() {
    List<String> time = redis.call("TIME", r -> r.time());
    return Long.parseLong(time.get(0)) * 1000L + Long.parseLong(time.get(1)) / 1000L;
  }
}

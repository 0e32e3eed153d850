package io.allot.store.redis;

import io.allot.store.Leadership;
import io.allot.store.Lease;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Leadership} on Redis: lease {@code N} is the key {@link RedisKeys#lease} holding {@code "<token>:<holder>"}
 * with a PX expiry (Redis time), its last token the key {@link RedisKeys#token} (no expiry; a new token is never
 * below {@code TIME} in microseconds, so a lost or rolled-back key issues no old token again). Each operation is one script ({@link Scripts#ACQUIRE}, {@link Scripts#RENEW},
 * {@link Scripts#RELEASE}) or a GET.
 */
final class RedisLeadership implements Leadership {
  private final RedisConnection redis;

  RedisLeadership(RedisConnection redis) {
    this.redis = redis;
  }

  @Override
  public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    String ttlMs = Args.ttlMillis(ttl);
    String leaseKey = RedisKeys.lease(name);
    String[] keys = redis.sameSlot("acquire lease '" + name + "'", leaseKey, leaseKey, RedisKeys.token(name));
    String token = redis.run("acquire lease " + name, Scripts.ACQUIRE, ScriptOutputType.VALUE, keys, holder, ttlMs);
    return token == null ? Optional.empty() : Optional.of(new Lease(name, holder, Long.parseLong(token)));
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    Objects.requireNonNull(lease, "lease");
    String ttlMs = Args.ttlMillis(ttl);
    return redis.runForFlag("renew lease " + lease.name(), Scripts.RENEW, new String[] {RedisKeys.lease(lease.name())},
        value(lease), ttlMs);
  }

  @Override
  public void release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    redis.runForFlag("release lease " + lease.name(), Scripts.RELEASE, new String[] {RedisKeys.lease(lease.name())},
        value(lease));
  }

  @Override
  public Optional<Lease> current(String name) {
    Objects.requireNonNull(name, "name");
    return parse(name, redis.call("GET lease " + name, r -> r.get(RedisKeys.lease(name))));
  }

  /** The value of a lease key: {@code "<token>:<holder>"}. */
  static String value(Lease lease) {
    return lease.token() + ":" + lease.holder();
  }

  /** The lease a lease key's value describes; empty for null. */
  static Optional<Lease> parse(String name, String value) {
    if (value == null || value.isEmpty()) {
      return Optional.empty();
    }
    int colon = value.indexOf(':');
    try {
      return Optional.of(new Lease(name, value.substring(colon + 1), Long.parseLong(value.substring(0, colon))));
    } catch (RuntimeException e) {
      throw new IllegalStateException("malformed lease value '" + value + "' for '" + name + "'", e);
    }
  }
}

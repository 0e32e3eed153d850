package io.allot.store.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pool-scoped roles ({@link RedisMembership}, {@link RedisOwnership}) share: the connection, the pool, the
 * safety settings the scripts take as arguments, and the report of a lost-state guard a script just stamped.
 */
abstract class PoolScoped {
  private static final Logger log = LoggerFactory.getLogger(PoolScoped.class);

  /** The shared connection. */
  protected final RedisConnection redis;
  /** The pool (its services list key); checked by {@link io.allot.store.Store#checkPool}. */
  protected final String pool;

  PoolScoped(RedisConnection redis, String pool) {
    this.redis = redis;
    this.pool = pool;
  }

  /** The pool this view is scoped to. */
  public final String pool() {
    return pool;
  }

  /** The clock margin in ms, as a script argument. */
  final String marginArg() {
    return Long.toString(redis.config().clockMargin().toMillis());
  }

  /** The lost-state guard in ms, as a script argument. */
  final String guardArg() {
    return Long.toString(redis.config().lostStateGuard().toMillis());
  }

  /**
   * Logs, at WARN, that the script just stamped the pool's lost-state guard with a wait ({@code why} non-empty):
   * only the call that stamps it reports it, so each loss is logged once per pool.
   */
  final void reportGuard(String why, String notBeforeMillis) {
    if (why != null && !why.isEmpty()) {
      log.warn("pool '{}' on {}: {}; claims in the pool wait the lost-state guard ({} ms) until store time {}: "
          + "leases granted before may still be trusted by their holders", pool, redis.where(), why,
          redis.config().lostStateGuard().toMillis(), notBeforeMillis);
    }
  }
}

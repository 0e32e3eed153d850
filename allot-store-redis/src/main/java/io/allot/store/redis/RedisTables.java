package io.allot.store.redis;

import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.SeedKeys;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.store.spi.HashTables;
import io.allot.store.spi.PublishArgs;
import io.allot.store.spi.Publications;
import io.allot.store.spi.Publications.Publication;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link Tables} on Redis: the table is the hash at the table key itself (the original distribution hash); its
 * epoch, the fields each pool wrote last, the last writer of each field and each pool's publication mark are
 * companion keys in the table's slot ({@link RedisKeys}), so one script checks the lease and writes everything
 * atomically, then publishes the new epoch on {@code allot:notify:<tableKey>}.
 *
 * <p><b>Incremental publication.</b> {@link #publish} keeps the contract of a full publication, but sends and writes
 * only what differs from this client's previous publication of the same pool under the same lease
 * ({@link Scripts#PUBLISH_CHANGES}): the fields whose value changed, and the fields dropped. The script applies the
 * difference only if the pool's publication mark in the store is the epoch that previous publication returned (no
 * one else published the pool since, no other pool overwrote one of its fields, the store did not lose it) and
 * the hash was not deleted; otherwise nothing changes and the full table is written ({@link Scripts#PUBLISH}). A
 * publication that failed leaves no previous one behind, so the next is full. The hash keeps the original layout:
 * the original Go workers read it as before. Thread-safe.
 */
final class RedisTables extends HashTables {
  private static final Long FENCED = 0L;
  private static final Long STALE_MARK = 2L;

  private final RedisConnection redis;
  /**
   * The last successful publication of each (table key, pool) by this client, removed while a publication of it is
   * in flight. Thread-safe (Publications).
   */
  private final Publications previous = new Publications();

  /** {@code hashes} reads the table hashes (the same HGETALL / HGET as the seed layout). */
  RedisTables(RedisConnection redis, SeedKeys hashes) {
    super(hashes);
    this.redis = redis;
  }

  @Override
  public long publish(Lease lease, String tableKey, String pool, Map<String, String> fields) {
    Map<String, String> snapshot = PublishArgs.check(lease, tableKey, pool, fields);
    String[] keys = redis.sameSlot("publish into '" + tableKey + "'", tableKey, tableKey, RedisKeys.epoch(tableKey),
        RedisKeys.poolFields(tableKey, pool), RedisKeys.owners(tableKey), RedisKeys.lease(lease.name()),
        RedisKeys.marks(tableKey));
    Publication prev = previous.take(lease, tableKey, pool);
    Long epoch = null;
    if (prev != null) {
      epoch = publishChanges(lease, tableKey, pool, keys, prev, snapshot);
    }
    if (epoch == null) {
      epoch = publishAll(lease, tableKey, pool, keys, snapshot);
    }
    previous.put(lease, tableKey, pool, epoch, snapshot);
    return epoch;
  }

  /** The full publication; returns the epoch or throws {@link FencedException}. */
  private long publishAll(Lease lease, String tableKey, String pool, String[] keys, Map<String, String> fields) {
    String[] args = new String[3 + 2 * fields.size()];
    args[0] = RedisLeadership.value(lease);
    args[1] = pool;
    args[2] = Topic.table(tableKey).channel();
    int i = 3;
    for (Map.Entry<String, String> e : fields.entrySet()) {
      args[i++] = e.getKey();
      args[i++] = e.getValue();
    }
    return outcome(lease, redis.run("publish into " + tableKey, Scripts.PUBLISH, ScriptOutputType.MULTI, keys, args));
  }

  /** The difference to {@code prev}; returns the epoch, null if the store no longer holds {@code prev}. */
  private Long publishChanges(Lease lease, String tableKey, String pool, String[] keys, Publication prev,
      Map<String, String> fields) {
    List<String> dropped = prev.dropped(fields);
    List<String> args = new ArrayList<>();
    args.add(RedisLeadership.value(lease));
    args.add(pool);
    args.add(Topic.table(tableKey).channel());
    args.add(Long.toString(prev.epoch()));
    args.add(Integer.toString(dropped.size()));
    args.addAll(dropped);
    prev.changed(fields).forEach((f, v) -> {
      args.add(f);
      args.add(v);
    });
    List<Object> result = redis.run("publish changes into " + tableKey, Scripts.PUBLISH_CHANGES,
        ScriptOutputType.MULTI, keys, args.toArray(new String[0]));
    if (STALE_MARK.equals(result.get(0))) {
      return null;
    }
    return outcome(lease, result);
  }

  private static long outcome(Lease lease, List<Object> result) {
    if (FENCED.equals(result.get(0))) {
      throw new FencedException(lease, RedisLeadership.parse(lease.name(), (String) result.get(1)));
    }
    return (Long) result.get(1);
  }

  @Override
  public long epoch(String tableKey) {
    Objects.requireNonNull(tableKey, "tableKey");
    String value = redis.call("GET epoch " + tableKey, r -> r.get(RedisKeys.epoch(tableKey)));
    return value == null ? 0L : Long.parseLong(value);
  }
}

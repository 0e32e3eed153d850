package io.allot.store.redis;

import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.SeedKeys;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Tables} on Redis: the table is the hash at the table key itself (the original distribution hash); its
 * epoch, the fields each group wrote last and the last writer of each field are companion keys in the table's slot
 * ({@link RedisKeys}), so {@link Scripts#PUBLISH} checks the lease and writes everything atomically, then publishes
 * the new epoch on {@code allot:notify:<tableKey>}.
 */
final class RedisTables implements Tables {
  private final RedisConnection redis;
  private final SeedKeys hashes;

  /** {@code hashes} reads the table hashes (the same HGETALL / HGET as the seed layout). */
  RedisTables(RedisConnection redis, SeedKeys hashes) {
    this.redis = redis;
    this.hashes = hashes;
  }

  @Override
  public long publish(Lease lease, String tableKey, String group, Map<String, String> fields) {
    Objects.requireNonNull(lease, "lease");
    String expectedName = Tables.leaseName(tableKey, group);
    if (!lease.name().equals(expectedName)) {
      throw new IllegalArgumentException("publishing group '" + group + "' into '" + tableKey
          + "' needs the lease named '" + expectedName + "', not '" + lease.name() + "'");
    }
    String[] keys = redis.sameSlot("publish into '" + tableKey + "'", tableKey, tableKey, RedisKeys.epoch(tableKey),
        RedisKeys.groupFields(tableKey, group), RedisKeys.owners(tableKey), RedisKeys.lease(lease.name()));
    String[] args = new String[3 + 2 * fields.size()];
    args[0] = RedisLeadership.value(lease);
    args[1] = group;
    args[2] = Topic.table(tableKey).channel();
    int i = 3;
    for (Map.Entry<String, String> e : fields.entrySet()) {
      args[i++] = Objects.requireNonNull(e.getKey(), "field");
      args[i++] = Objects.requireNonNull(e.getValue(), "value");
    }
    List<Object> result = redis.run("publish into " + tableKey, Scripts.PUBLISH, ScriptOutputType.MULTI, keys, args);
    if (((Long) result.get(0)) == 1L) {
      return (Long) result.get(1);
    }
    throw new FencedException(lease, RedisLeadership.parse(lease.name(), (String) result.get(1)));
  }

  @Override
  public long epoch(String tableKey) {
    Objects.requireNonNull(tableKey, "tableKey");
    String value = redis.call("GET epoch " + tableKey, r -> r.get(RedisKeys.epoch(tableKey)));
    return value == null ? 0L : Long.parseLong(value);
  }

  @Override
  public Map<String, String> read(String tableKey) {
    return hashes.hash(tableKey);
  }

  @Override
  public Optional<String> read(String tableKey, String member) {
    return Optional.ofNullable(hashes.hashField(tableKey, member));
  }
}

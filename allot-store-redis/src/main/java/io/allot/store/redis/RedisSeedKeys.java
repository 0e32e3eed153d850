package io.allot.store.redis;

import io.allot.store.SeedKeys;
import io.allot.store.Topic;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link SeedKeys} on Redis: the keys are used as given, so the original Go distributor and its services see the
 * same lists and hash. Writes that change a list are scripts that also {@code PUBLISH} on
 * {@code allot:changes:<key>} ({@link Topic#key}); servers with keyspace notifications on announce the key's changes
 * by themselves too.
 */
final class RedisSeedKeys implements SeedKeys {
  private final RedisConnection redis;

  RedisSeedKeys(RedisConnection redis) {
    this.redis = redis;
  }

  @Override
  public List<String> list(String key) {
    Objects.requireNonNull(key, "key");
    return redis.call("LRANGE " + key, r -> List.copyOf(r.lrange(key, 0, -1)));
  }

  @Override
  public boolean addToList(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return redis.runForFlag("add to list " + key, Scripts.ADD_IF_ABSENT, new String[] {key}, value, changes(key));
  }

  @Override
  public boolean removeFromList(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Long removed = redis.run("LREM " + key, Scripts.REMOVE_FROM_LIST, ScriptOutputType.INTEGER, new String[] {key},
        value, changes(key));
    return removed != null && removed > 0;
  }

  @Override
  public void replaceList(String key, List<String> values) {
    Objects.requireNonNull(key, "key");
    String[] args = new String[values.size() + 1];
    args[0] = changes(key);
    for (int i = 0; i < values.size(); i++) {
      args[i + 1] = Objects.requireNonNull(values.get(i), "list values must not be null");
    }
    redis.run("replace list " + key, Scripts.REPLACE_LIST, ScriptOutputType.INTEGER, new String[] {key}, args);
  }

  @Override
  public Map<String, String> hash(String key) {
    Objects.requireNonNull(key, "key");
    return redis.call("HGETALL " + key, r -> Map.copyOf(r.hgetall(key)));
  }

  @Override
  public String hashField(String key, String field) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(field, "field");
    return redis.call("HGET " + key, r -> r.hget(key, field));
  }

  private static String changes(String key) {
    return Topic.key(key).channel();
  }
}

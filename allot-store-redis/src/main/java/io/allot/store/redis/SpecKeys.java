package io.allot.store.redis;

import java.util.List;

/**
 * The Redis keys of the long-running task specs of pool {@code P}: {@link RedisKeys#companion companions} of
 * {@code allot:specs:P}, so all of a pool's spec keys are in one Cluster slot whatever the pool's name holds ('{',
 * '}', ':'): for a name without braces, {@code {allot:specs:P}:specs}, {@code {allot:specs:P}:args} and so on. As
 * for job queues ({@link JobKeys}), the {@code allot:specs:} prefix keeps these keys apart from the pool's own
 * companions (membership, ownership) and from a queue or list named P, and makes different pool names give different
 * keys (a pool named <code>{x}</code> gets {@code allot:specs:{x}:specs}, a pool named {@code x} gets
 * {@code {allot:specs:x}:specs}). What each key holds: {@code lua/tasks/prelude.lua} ({@link SpecScripts}).
 */
final class SpecKeys {
  /** The keys' suffixes, in the order the scripts take them as KEYS. */
  static final List<String> SUFFIXES = List.of("specs", "args", "runs", "faults", "version");

  private SpecKeys() {}

  /** The keys of the specs of {@code pool}, in {@link #SUFFIXES} order (checked to share a slot on a Cluster). */
  static String[] of(RedisConnection redis, String pool) {
    String[] keys = names(pool);
    return redis.sameSlot("use the task specs of pool '" + pool + "'", keys[0], keys);
  }

  /** The keys of the specs of {@code pool}, in {@link #SUFFIXES} order. */
  static String[] names(String pool) {
    String base = "allot:specs:" + pool;
    return SUFFIXES.stream().map(s -> RedisKeys.companion(base, s)).toArray(String[]::new);
  }
}

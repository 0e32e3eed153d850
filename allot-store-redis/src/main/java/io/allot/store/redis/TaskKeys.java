package io.allot.store.redis;

import java.util.List;

/**
 * The Redis keys of task queue {@code Q}: {@link RedisKeys#companion companions} of {@code allot:q:Q}, so all of a
 * queue's keys are in one Cluster slot whatever the name holds ('{', '}', ':'): for a name without braces,
 * {@code {allot:q:Q}:tasks}, {@code {allot:q:Q}:ready} and so on. The {@code allot:q:} prefix keeps the queue's
 * slot apart from a pool or list named Q, and makes different names give different keys (a queue named
 * <code>{x}</code> gets {@code allot:q:{x}:tasks}, a queue named {@code x} gets {@code {allot:q:x}:tasks}). What
 * each key holds: {@link TaskScripts}.
 */
final class TaskKeys {
  /** The keys' suffixes, in the order the scripts take them as KEYS. */
  static final List<String> SUFFIXES = List.of("tasks", "data", "errors", "ready", "delayed", "locks", "todo",
      "failures", "done", "counts", "rate");

  private TaskKeys() {}

  /** The keys of queue {@code queue}, in {@link #SUFFIXES} order (checked to share a slot on a Cluster). */
  static String[] of(RedisConnection redis, String queue) {
    String base = "allot:q:" + queue;
    String[] keys = SUFFIXES.stream().map(s -> RedisKeys.companion(base, s)).toArray(String[]::new);
    return redis.sameSlot("use task queue '" + queue + "'", keys[0], keys);
  }
}

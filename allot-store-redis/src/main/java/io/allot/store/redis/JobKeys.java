package io.allot.store.redis;

import java.util.List;

/**
 * The Redis keys of job queue {@code Q}: {@link RedisKeys#companion companions} of {@code allot:q:Q}, so all of a
 * queue's keys are in one Cluster slot whatever the name holds ('{', '}', ':'): for a name without braces,
 * {@code {allot:q:Q}:jobs}, {@code {allot:q:Q}:ready} and so on. The {@code allot:q:} prefix keeps the queue's
 * slot apart from a pool or list named Q, and makes different names give different keys (a queue named
 * <code>{x}</code> gets {@code allot:q:{x}:jobs}, a queue named {@code x} gets {@code {allot:q:x}:jobs}). What
 * each key holds: the comment of {@code lua/jobs/prelude.lua} ({@link JobScripts}).
 */
final class JobKeys {
  /**
   * The keys' suffixes, in the order the scripts take them as KEYS. The last, {@code tasks}, is where releases before
   * the word "job" kept the {@code jobs} hash: every script renames it to {@code jobs} when only it exists (so a queue
   * written by such a release keeps its jobs; its workers must be stopped before the upgrade).
   */
  static final List<String> SUFFIXES = List.of("jobs", "data", "errors", "ready", "delayed", "locks", "todo",
      "failures", "done", "counts", "rate", "tasks");

  private JobKeys() {}

  /** The keys of queue {@code queue}, in {@link #SUFFIXES} order (checked to share a slot on a Cluster). */
  static String[] of(RedisConnection redis, String queue) {
    String base = "allot:q:" + queue;
    String[] keys = SUFFIXES.stream().map(s -> RedisKeys.companion(base, s)).toArray(String[]::new);
    return redis.sameSlot("use job queue '" + queue + "'", keys[0], keys);
  }
}

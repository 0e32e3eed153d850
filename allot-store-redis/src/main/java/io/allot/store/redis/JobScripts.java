package io.allot.store.redis;

import java.util.List;

/**
 * The index of {@link RedisJobQueue}'s Lua scripts: one per method, each atomic (the Lua: {@code lua/jobs/} under
 * this package's resources, see {@link Script}). Every script gets the same twelve KEYS, all in the queue's slot
 * ({@link JobKeys}): {@code jobs, data, errors, ready, delayed, locks, todo, failures, done, counts, rate} and
 * {@code tasks}, the {@code jobs} hash's name before the rename, renamed by every script when it alone exists. What
 * each key holds, the state record and the index rules: {@code jobs/prelude.lua}.
 */
final class JobScripts {
  private JobScripts() {}

  /** The keys, the state record, the indexes, the counts, the rate bucket, the rename. */
  private static final String PRELUDE = "jobs/prelude.lua";

  static final Script ENQUEUE = Script.load("jobs/enqueue.lua", PRELUDE);
  static final Script CLAIM = Script.load("jobs/claim.lua", PRELUDE);
  static final Script EXTEND = Script.load("jobs/extend.lua", PRELUDE);
  static final Script FINISH = Script.load("jobs/finish.lua", PRELUDE);
  static final Script FINISH_ALL = Script.load("jobs/finish_all.lua", PRELUDE);
  static final Script FAIL = Script.load("jobs/fail.lua", PRELUDE);
  static final Script GET = Script.load("jobs/get.lua", PRELUDE);
  static final Script RETRY = Script.load("jobs/retry.lua", PRELUDE);
  static final Script IGNORE = Script.load("jobs/ignore.lua", PRELUDE);
  static final Script GIVE_BACK = Script.load("jobs/give_back.lua", PRELUDE);
  static final Script LIMIT_RATE = Script.load("jobs/limit_rate.lua", PRELUDE);
  static final Script STATS = Script.load("jobs/stats.lua", PRELUDE);
  static final Script PURGE = Script.load("jobs/purge.lua", PRELUDE);

  /** Every script of this index. */
  static final List<Script> ALL = List.of(ENQUEUE, CLAIM, EXTEND, FINISH, FINISH_ALL, FAIL, GET, RETRY, IGNORE,
      GIVE_BACK, LIMIT_RATE, STATS, PURGE);
}

package io.allot.store.redis;

import java.util.List;

/**
 * The index of {@link RedisTaskSpecs}'s Lua scripts: one per write, each atomic, plus two reads (one spec, every
 * spec) so a read sees one consistent state (the Lua: {@code lua/tasks/} under this package's resources, see
 * {@link Script}). Every script gets the same five KEYS, all in the pool's slot ({@link SpecKeys}):
 * {@code specs, args, runs, faults, version}, and ARGV[1] the channel of
 * {@link io.allot.store.Topic#taskSpecs(String)}, ARGV[2] the task name. What each key holds, the records and the
 * replies: {@code tasks/prelude.lua}.
 */
final class SpecScripts {
  private SpecScripts() {}

  /** The keys, the record, the reply, the announcement, the token comparison. */
  private static final String PRELUDE = "tasks/prelude.lua";

  static final Script CREATE = Script.load("tasks/create.lua", PRELUDE);
  static final Script UPDATE = Script.load("tasks/update.lua", PRELUDE);
  static final Script DELETE = Script.load("tasks/delete.lua", PRELUDE);
  static final Script GET = Script.load("tasks/get.lua", PRELUDE);
  static final Script LIST = Script.load("tasks/list.lua", PRELUDE);
  static final Script STARTED = Script.load("tasks/started.lua", PRELUDE);
  static final Script FAULT = Script.load("tasks/fault.lua", PRELUDE);
  static final Script PURGE = Script.load("tasks/purge.lua", PRELUDE);

  /** Every script of this index. */
  static final List<Script> ALL = List.of(CREATE, UPDATE, DELETE, GET, LIST, STARTED, FAULT, PURGE);
}

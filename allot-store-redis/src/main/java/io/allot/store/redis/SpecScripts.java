package io.allot.store.redis;

import io.allot.store.redis.Scripts.Script;
import java.util.List;

/**
 * The Lua scripts of {@link RedisTaskSpecs}: one per write, each atomic, plus two reads (one spec, every spec) so a
 * read sees one consistent state. Every script gets the same five KEYS, all in the pool's slot ({@link SpecKeys}),
 * each a hash keyed by task name except the last:
 *
 * <ol>
 *   <li>{@code specs}: name -> {@code "revision|cost|createdMillis|updatedMillis|deletedMillis"} (deletedMillis 0
 *       while live)</li>
 *   <li>{@code args}: name -> the arguments, verbatim</li>
 *   <li>{@code runs}: name -> the last confirmed start {@code "token|revision|startedMillis|member"} (the member
 *       last, so it may hold '|'); absent before the first</li>
 *   <li>{@code faults}: name -> {@code "failures|failing (0/1)|lastErrorMillis|lastError"} (the error last, so it
 *       may hold anything); absent when none</li>
 *   <li>{@code version}: the pool's change counter (INCR)</li>
 * </ol>
 *
 * <p>Text (arguments, member, error) is stored as the value of a hash field or as the tail of a record, never
 * between separators, so it needs no escaping and comes back byte for byte. ARGV[1] is the channel of
 * {@link io.allot.store.Topic#taskSpecs(String)}, ARGV[2] the task name; every change of a spec (create, update,
 * delete, purge; not the run and fault reports) INCRs {@code version} and PUBLISHes the name on the channel, in the
 * script. Times are Redis {@code TIME} in milliseconds. Numbers that come
 * from Java (cost, tokens, revisions) are kept as the decimal text Java wrote and compared as text (tokens by
 * {@code cmp}, which orders canonical decimal integers exactly, whatever their size), so no long passes through a
 * Lua double; only revisions (small) are incremented as numbers.
 *
 * <p>Every write script answers {@code {outcome, record, args, run, fault}} (false, a nil bulk, for what is absent)
 * or a flag; the outcomes are {@code CREATED}, {@code EXISTS}, {@code CONFLICT}, {@code UPDATED}, {@code SAME},
 * {@code DELETED}, {@code NONE}.
 */
final class SpecScripts {
  private SpecScripts() {}

  /** Shared by every script: the keys, time, the record, the reply, the announcement. */
  private static final String PRELUDE = """
      if redis.replicate_commands then redis.replicate_commands() end
      local K_SPECS, K_ARGS, K_RUNS, K_FAULTS, K_VERSION = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
      local CHANNEL, NAME = ARGV[1], ARGV[2]
      local function fmt(n) return string.format('%.0f', n) end
      local function now_ms()
        local t = redis.call('TIME')
        return fmt(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
      end
      local function load()
        local v = redis.call('HGET', K_SPECS, NAME)
        if not v then return nil end
        local rev, cost, cr, up, del = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)|(%d+)$')
        if not rev then error('task spec ' .. NAME .. ' has an unreadable record: ' .. v) end
        return {rev = rev, cost = cost, cr = cr, up = up, del = del}
      end
      local function record(s) return s.rev .. '|' .. s.cost .. '|' .. s.cr .. '|' .. s.up .. '|' .. s.del end
      local function save(s) redis.call('HSET', K_SPECS, NAME, record(s)) end
      local function reply(outcome, s)
        return {outcome, record(s), redis.call('HGET', K_ARGS, NAME), redis.call('HGET', K_RUNS, NAME),
                redis.call('HGET', K_FAULTS, NAME)}
      end
      local function changed()
        redis.call('INCR', K_VERSION)
        redis.call('PUBLISH', CHANNEL, NAME)
      end
      -- canonical decimal integers (as Java's Long.toString writes them) compared exactly: -1, 0 or 1
      local function cmp(a, b)
        if a == b then return 0 end
        local na, nb = string.sub(a, 1, 1) == '-', string.sub(b, 1, 1) == '-'
        if na ~= nb then return na and -1 or 1 end
        local r
        if #a ~= #b then r = (#a < #b) and -1 or 1 else r = (a < b) and -1 or 1 end
        return na and -r or r
      end
      local function run_token(run) return run and string.match(run, '^(%-?%d+)|') end
      """;

  private static Script script(String name, String body) {
    return Script.of("spec:" + name, PRELUDE + body);
  }

  /**
   * ARGV[3] args, [4] cost. A live spec: EXISTS (same args and cost) or CONFLICT, unchanged. Else (none, or a
   * tombstone) a new live spec, revision the tombstone's + 1 or 1, its run and fault cleared: CREATED.
   */
  static final Script CREATE = script("create", """
      local old = load()
      if old and old.del == '0' then
        local same = redis.call('HGET', K_ARGS, NAME) == ARGV[3] and old.cost == ARGV[4]
        return reply(same and 'EXISTS' or 'CONFLICT', old)
      end
      local now = now_ms()
      local s = {rev = old and fmt(tonumber(old.rev) + 1) or '1', cost = ARGV[4], cr = now, up = now, del = '0'}
      save(s)
      redis.call('HSET', K_ARGS, NAME, ARGV[3])
      redis.call('HDEL', K_RUNS, NAME)
      redis.call('HDEL', K_FAULTS, NAME)
      changed()
      return reply('CREATED', s)
      """);

  /** ARGV[3] args, [4] cost. NONE without a live spec; SAME if nothing changes; else UPDATED (revision + 1). */
  static final Script UPDATE = script("update", """
      local s = load()
      if not s or s.del ~= '0' then return {'NONE'} end
      if redis.call('HGET', K_ARGS, NAME) == ARGV[3] and s.cost == ARGV[4] then return reply('SAME', s) end
      s.rev = fmt(tonumber(s.rev) + 1)
      s.cost = ARGV[4]
      s.up = now_ms()
      save(s)
      redis.call('HSET', K_ARGS, NAME, ARGV[3])
      changed()
      return reply('UPDATED', s)
      """);

  /** NONE without a spec; SAME for a tombstone; else DELETED (deleted and updated now). */
  static final Script DELETE = script("delete", """
      local s = load()
      if not s then return {'NONE'} end
      if s.del ~= '0' then return reply('SAME', s) end
      local now = now_ms()
      s.up = now
      s.del = now
      save(s)
      changed()
      return reply('DELETED', s)
      """);

  /** The spec NAME: SAME, or NONE. */
  static final Script GET = script("get", """
      local s = load()
      if not s then return {'NONE'} end
      return reply('SAME', s)
      """);

  /** Every spec: {@code {HGETALL specs, HGETALL args, HGETALL runs, HGETALL faults}} (ARGV[2] unused). */
  static final Script LIST = script("list", """
      return {redis.call('HGETALL', K_SPECS), redis.call('HGETALL', K_ARGS), redis.call('HGETALL', K_RUNS),
              redis.call('HGETALL', K_FAULTS)}
      """);

  /**
   * ARGV[3] member, [4] token, [5] revision. Records the run (stamped now) if the spec exists and the recorded run's
   * token is not above ARGV[4]; the fault stays only under the same token. 1 if recorded.
   */
  static final Script STARTED = script("started", """
      if not load() then return 0 end
      local tok = run_token(redis.call('HGET', K_RUNS, NAME))
      local c = tok and cmp(tok, ARGV[4]) or -1
      if c > 0 then return 0 end
      redis.call('HSET', K_RUNS, NAME, ARGV[4] .. '|' .. ARGV[5] .. '|' .. now_ms() .. '|' .. ARGV[3])
      if c ~= 0 then redis.call('HDEL', K_FAULTS, NAME) end
      return 1 -- a report, not a change of the spec: no version bump, no announcement (see TaskSpecs)
      """);

  /**
   * ARGV[3] token, [4] the fault record (empty: clear it). Writes it if the recorded run holds that token. 1 if
   * recorded.
   */
  static final Script FAULT = script("fault", """
      if not load() or run_token(redis.call('HGET', K_RUNS, NAME)) ~= ARGV[3] then return 0 end
      if ARGV[4] == '' then
        redis.call('HDEL', K_FAULTS, NAME)
      else
        redis.call('HSET', K_FAULTS, NAME, ARGV[4])
      end
      return 1 -- a report: not announced
      """);

  /** ARGV[3] revision. Removes the tombstone of that revision (with its args, run and fault). 1 if removed. */
  static final Script PURGE = script("purge", """
      local s = load()
      if not s or s.del == '0' or s.rev ~= ARGV[3] then return 0 end
      redis.call('HDEL', K_SPECS, NAME)
      redis.call('HDEL', K_ARGS, NAME)
      redis.call('HDEL', K_RUNS, NAME)
      redis.call('HDEL', K_FAULTS, NAME)
      changed()
      return 1
      """);

  /** Every script, for preloading. */
  static final List<Script> ALL = List.of(CREATE, UPDATE, DELETE, GET, LIST, STARTED, FAULT, PURGE);
}

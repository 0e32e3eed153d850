package io.allot.store.redis;

import io.allot.store.redis.Scripts.Script;
import java.util.List;

/**
 * The Lua scripts of {@link RedisJobQueue}: one per method, each atomic. Every script gets the same twelve KEYS,
 * all in the queue's slot ({@link JobKeys}; the twelfth, {@code tasks}, is the {@code jobs} hash's name before the
 * rename, renamed by every script when it alone exists):
 *
 * <ol>
 *   <li>{@code jobs}: hash key -> the job's state {@code "status|attempts|max|priority|due|updated|token|worker"}
 *       (times and tokens in microseconds of Redis time; the worker last, so it may contain '|')</li>
 *   <li>{@code data}: hash key -> payload (absent when empty)</li>
 *   <li>{@code errors}: hash key -> last error (absent when none)</li>
 *   <li>{@code ready}: sorted set of the jobs known to be runnable, score {@code -priority}, member
 *       {@code due (17 digits) .. key}: rank order is priority desc, due asc, key asc</li>
 *   <li>{@code delayed}: sorted set of {@code TODO}/{@code FAILED} jobs not yet due when placed, score due</li>
 *   <li>{@code locks}: sorted set of {@code PROCESSING} jobs, score the lock's expiry</li>
 *   <li>{@code todo}: sorted set of the {@code TODO} jobs, score due (for {@code oldestTodoMillis})</li>
 *   <li>{@code failures}: sorted set of the {@code FAILED} and {@code IGNORED} jobs, score updated</li>
 *   <li>{@code done}: sorted set of the {@code FINISHED} and {@code IGNORED} jobs, score updated (for purge)</li>
 *   <li>{@code counts}: hash status code -> number of jobs</li>
 *   <li>{@code rate}: hash {@code rate} (jobs/s, as Java wrote it), {@code permits}, {@code refilled} (µs)</li>
 * </ol>
 *
 * <p>A {@code TODO}/{@code FAILED} job is in exactly one of {@code ready} and {@code delayed}; a {@code PROCESSING}
 * one in {@code locks} until a claim moves it, its lock expired by the clock margin, into {@code ready}. Claims move
 * what became runnable from {@code delayed} and {@code locks} into {@code ready} (at most a bounded number per call,
 * earliest first) and take {@code ready}'s first members: so jobs not yet due never stand in the way of due ones of
 * lower priority, and a claim costs O(log n) per job whatever the backlog. Every transition goes through
 * {@code leave} (out of the indexes of the old status) and {@code enter} (into those of the new one), so the
 * indexes and counts follow the state; a claim also skips any member that no longer matches its job, and moves
 * only entries whose job is still in the index's status. Enqueue and the claim of a batch send their writes as a
 * few multi-element commands (HMGET, HSET, ZADD, ZREM in chunks of 1000 arguments: Lua's unpack limit), not one
 * command per job.
 *
 * <p>Numbers are Lua doubles: microseconds (about 2^51 today) and tokens stay exact below 2^53, and are written with
 * {@code %.0f} (never an exponent). Tokens are compared as text.
 */
final class JobScripts {
  private JobScripts() {}

  /**
   * Shared by every script: the keys, time, the state record, the indexes and the counts. (Package-visible for the
   * test's prototype of a batched finish.)
   */
  static final String PRELUDE = """
      if redis.replicate_commands then redis.replicate_commands() end
      local K_JOBS, K_DATA, K_ERRORS, K_READY, K_DELAYED, K_LOCKS = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
      local K_TODO, K_FAILURES, K_DONE, K_COUNTS, K_RATE = KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
      if redis.call('EXISTS', K_JOBS) == 0 and redis.call('EXISTS', KEYS[12]) == 1 then
        redis.call('RENAME', KEYS[12], K_JOBS)
      end
      local function now_us()
        local t = redis.call('TIME')
        return tonumber(t[1]) * 1000000 + tonumber(t[2])
      end
      local function fmt(n) return string.format('%.0f', n) end
      local function parse(v)
        if not v then return nil end
        local s, a, m, p, due, upd, tok, w =
            string.match(v, '^(%d+)|(%d+)|(%d+)|(%-?%d+)|(%d+)|(%d+)|(%d+)|(.*)$')
        if not s then return nil end
        return {s = tonumber(s), a = tonumber(a), m = tonumber(m), p = tonumber(p), due = tonumber(due),
                upd = tonumber(upd), tok = tonumber(tok), w = w}
      end
      local function load(key) return parse(redis.call('HGET', K_JOBS, key)) end
      local function record(r)
        return string.format('%d|%d|%d|%d|%.0f|%.0f|%.0f|', r.s, r.a, r.m, r.p, r.due, r.upd, r.tok) .. r.w
      end
      local function save(key, r) redis.call('HSET', K_JOBS, key, record(r)) end
      local function member(key, r) return string.format('%017.0f', r.due) .. key end
      local counts = {}
      local function count(code, d) counts[code] = (counts[code] or 0) + d end
      local function flush_counts()
        for c, d in pairs(counts) do
          if d ~= 0 then redis.call('HINCRBY', K_COUNTS, c, d) end
        end
      end
      local function held(r, token) return r ~= nil and r.s == 30 and fmt(r.tok) == token end
      -- out of the indexes of r's status (r as stored); ready_known: r is known not to be in ready (or delayed)
      local function leave(key, r, ready_known)
        local s = r.s
        if s == 0 or s == 20 then
          if not ready_known then
            redis.call('ZREM', K_READY, member(key, r))
            redis.call('ZREM', K_DELAYED, key)
          end
          if s == 0 then redis.call('ZREM', K_TODO, key) else redis.call('ZREM', K_FAILURES, key) end
        elseif s == 30 then
          if not ready_known then redis.call('ZREM', K_READY, member(key, r)) end
          redis.call('ZREM', K_LOCKS, key)
        else
          redis.call('ZREM', K_DONE, key)
          if s == 70 then redis.call('ZREM', K_FAILURES, key) end
        end
        count(s, -1)
      end
      -- into the indexes of r's (new) status, and saved
      local function enter(key, r, now)
        local s = r.s
        if s == 0 or s == 20 then
          if r.due <= now then
            redis.call('ZADD', K_READY, -r.p, member(key, r))
          else
            redis.call('ZADD', K_DELAYED, r.due, key)
          end
          if s == 0 then redis.call('ZADD', K_TODO, r.due, key) else redis.call('ZADD', K_FAILURES, r.upd, key) end
        elseif s == 30 then
          redis.call('ZADD', K_LOCKS, r.due, key)
        else
          redis.call('ZADD', K_DONE, r.upd, key)
          if s == 70 then redis.call('ZADD', K_FAILURES, r.upd, key) end
        end
        count(s, 1)
        save(key, r)
      end
      local function set_error(key, e)
        if e == '' then redis.call('HDEL', K_ERRORS, key) else redis.call('HSET', K_ERRORS, key, e) end
      end
      -- redis.call(cmd, key, args...) in chunks of at most 1000 arguments (Lua's unpack has a stack limit; 1000 is
      -- even, so field-value and score-member pairs stay together); returns the replies' elements, concatenated
      local function chunked(cmd, key, args)
        local out = {}
        local n = #args
        local i = 1
        while i <= n do
          local j = math.min(i + 999, n)
          local r = redis.call(cmd, key, unpack(args, i, j))
          if type(r) == 'table' then
            for k = 1, #r do out[#out + 1] = r[k] end
          end
          i = j + 1
        end
        return out
      end
      local function zrem_all(zkey, members) chunked('ZREM', zkey, members) end
      """;

  private static Script script(String name, String body) {
    return Script.of("job:" + name, PRELUDE + body);
  }

  /**
   * ARGV: key, data, priority, max attempts, delay µs, repeated (distinct keys). Adds each key not in {@code jobs}
   * yet (one HMGET tells which), as {@code TODO} due now + delay. Returns how many were added.
   */
  static final Script ENQUEUE = script("enqueue", """
      local now = now_us()
      local keys = {}
      for i = 1, #ARGV, 5 do keys[#keys + 1] = ARGV[i] end
      local present = chunked('HMGET', K_JOBS, keys)
      local recs, data, ready, delayed, todo = {}, {}, {}, {}, {}
      local added = 0
      for idx = 1, #keys do
        if not present[idx] then
          local i = idx * 5 - 4
          local key = keys[idx]
          local r = {s = 0, a = 0, m = tonumber(ARGV[i + 3]), p = tonumber(ARGV[i + 2]),
                     due = now + tonumber(ARGV[i + 4]), upd = now, tok = 0, w = ''}
          recs[#recs + 1] = key
          recs[#recs + 1] = record(r)
          if ARGV[i + 1] ~= '' then
            data[#data + 1] = key
            data[#data + 1] = ARGV[i + 1]
          end
          if r.due <= now then
            ready[#ready + 1] = -r.p
            ready[#ready + 1] = member(key, r)
          else
            delayed[#delayed + 1] = fmt(r.due)
            delayed[#delayed + 1] = key
          end
          todo[#todo + 1] = fmt(r.due)
          todo[#todo + 1] = key
          added = added + 1
        end
      end
      chunked('HSET', K_JOBS, recs)
      chunked('HSET', K_DATA, data)
      chunked('ZADD', K_READY, ready)
      chunked('ZADD', K_DELAYED, delayed)
      chunked('ZADD', K_TODO, todo)
      if added > 0 then redis.call('HINCRBY', K_COUNTS, 0, added) end
      return added
      """);

  /**
   * ARGV[1] worker, [2] max, [3] lock TTL µs, [4] clock margin µs, [5] most jobs moved into {@code ready} per index.
   * Takes permits from the rate bucket (if the queue has a rate), moves the due {@code delayed} jobs and the locks
   * expired by the margin into {@code ready}, then locks {@code ready}'s first jobs: a {@code PROCESSING} one on its
   * last attempt becomes {@code IGNORED} instead (and takes no permit). Returns key, data, token, attempt, max
   * attempts, locked until (ms) for each locked job, flat, all as text.
   */
  static final Script CLAIM = script("claim", """
      local now = now_us()
      local worker, max, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
      local margin, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
      local allowed = max
      local bucket = redis.call('HMGET', K_RATE, 'rate', 'permits', 'refilled')
      local rate = tonumber(bucket[1] or '') or 0
      local permits = 0
      if rate > 0 then
        local refilled = tonumber(bucket[3] or '') or now
        permits = math.min(math.max(1, rate),
            (tonumber(bucket[2] or '') or 0) + math.max(0, now - refilled) / 1000000 * rate)
        allowed = math.min(max, math.floor(permits))
      end
      local out = {}
      local claimed = 0
      if allowed > 0 then
        local due = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', fmt(now), 'LIMIT', 0, limit)
        for _, key in ipairs(due) do
          local r = load(key)
          if r and (r.s == 0 or r.s == 20) then redis.call('ZADD', K_READY, -r.p, member(key, r)) end
        end
        zrem_all(K_DELAYED, due)
        local expired = redis.call('ZRANGEBYSCORE', K_LOCKS, '-inf', fmt(now - margin), 'LIMIT', 0, limit)
        for _, key in ipairs(expired) do
          local r = load(key)
          if r and r.s == 30 then redis.call('ZADD', K_READY, -r.p, member(key, r)) end
        end
        zrem_all(K_LOCKS, expired)
        local need = allowed
        while need > 0 do
          local ms = redis.call('ZRANGE', K_READY, 0, need - 1)
          if #ms == 0 then break end
          zrem_all(K_READY, ms)
          local keys = {}
          for i = 1, #ms do keys[i] = string.sub(ms[i], 18) end
          local stored = chunked('HMGET', K_JOBS, keys)
          local recs, locks, todo, failures, taken = {}, {}, {}, {}, {}
          for i = 1, #ms do
            local key = keys[i]
            local r = parse(stored[i])
            if r and r.s < 50 and member(key, r) == ms[i] then
              if r.s == 30 and r.a >= r.m then
                leave(key, r, true)
                set_error(key, 'lock of ' .. r.w .. ' expired on the last attempt (' .. r.a .. ' of ' .. r.m .. ')')
                r.s = 70
                r.upd = now
                enter(key, r, now)
              else
                -- out of ready (above), todo or failures; an expired lock already left locks when it was moved
                if r.s == 0 then todo[#todo + 1] = key elseif r.s == 20 then failures[#failures + 1] = key end
                count(r.s, -1)
                count(30, 1)
                r.s = 30
                r.a = r.a + 1
                r.tok = math.max(r.tok + 1, now)
                r.w = worker
                r.due = now + ttl
                r.upd = now
                recs[#recs + 1] = key
                recs[#recs + 1] = record(r)
                locks[#locks + 1] = fmt(r.due)
                locks[#locks + 1] = key
                taken[#taken + 1] = key
                out[#out + 1] = key
                out[#out + 1] = ''
                out[#out + 1] = fmt(r.tok)
                out[#out + 1] = tostring(r.a)
                out[#out + 1] = tostring(r.m)
                out[#out + 1] = fmt(math.floor(r.due / 1000))
                need = need - 1
              end
            end
          end
          zrem_all(K_TODO, todo)
          zrem_all(K_FAILURES, failures)
          chunked('HSET', K_JOBS, recs)
          chunked('ZADD', K_LOCKS, locks)
          local data = chunked('HMGET', K_DATA, taken)
          local first = #out - 6 * #taken
          for i = 1, #taken do out[first + 6 * i - 4] = data[i] or '' end
          claimed = claimed + #taken
        end
      end
      if rate > 0 then
        redis.call('HSET', K_RATE, 'permits', string.format('%.17g', permits - claimed), 'refilled', fmt(now))
      end
      flush_counts()
      return out
      """);

  /** ARGV[1] key, [2] token, [3] lock TTL µs. Extends a held lock to now + TTL. Returns 1 if extended. */
  static final Script EXTEND = script("extend", """
      local key = ARGV[1]
      local r = load(key)
      if not held(r, ARGV[2]) then return 0 end
      local now = now_us()
      leave(key, r, false)
      r.due = now + tonumber(ARGV[3])
      enter(key, r, now)
      return 1
      """);

  /**
   * ARGV[1] key, [2] token, [3] clock margin µs. Finishes the job if the token holds its lock. Returns 1 if
   * finished. (A lock that has not expired by the margin cannot have been moved into {@code ready} by a claim: no
   * ZREM there; after a backward step of Redis time, a member left behind is skipped and dropped by claims.)
   */
  static final Script FINISH = script("finish", """
      local key = ARGV[1]
      local r = load(key)
      if not held(r, ARGV[2]) then return 0 end
      local now = now_us()
      leave(key, r, r.due + tonumber(ARGV[3]) > now)
      r.s = 50
      r.upd = now
      enter(key, r, now)
      flush_counts()
      return 1
      """);

  /**
   * ARGV[1] clock margin µs, then key, token, key, token, ... Finishes each job whose token holds its lock, as
   * {@link #FINISH} does one. Returns 1 or 0 per job, in order.
   */
  static final Script FINISH_ALL = script("finishAll", """
      local margin = tonumber(ARGV[1])
      local now = now_us()
      local out = {}
      for i = 2, #ARGV, 2 do
        local key = ARGV[i]
        local r = load(key)
        if held(r, ARGV[i + 1]) then
          leave(key, r, r.due + margin > now)
          r.s = 50
          r.upd = now
          enter(key, r, now)
          out[#out + 1] = 1
        else
          out[#out + 1] = 0
        end
      end
      flush_counts()
      return out
      """);

  /**
   * ARGV[1] key, [2] token, [3] error, [4] backoff µs. If the token holds the lock: {@code FAILED} due after the
   * backoff (returns 20), or {@code IGNORED} on the last attempt (returns 70); else 0.
   */
  static final Script FAIL = script("fail", """
      local key = ARGV[1]
      local r = load(key)
      if not held(r, ARGV[2]) then return 0 end
      local now = now_us()
      leave(key, r, false)
      set_error(key, ARGV[3])
      r.upd = now
      if r.a >= r.m then
        r.s = 70
      else
        r.s = 20
        r.due = now + tonumber(ARGV[4])
      end
      enter(key, r, now)
      flush_counts()
      return r.s
      """);

  /** ARGV[1] key. Returns {state record, data, error}, or nil if the queue has no such job. */
  static final Script GET = script("get", """
      local key = ARGV[1]
      local v = redis.call('HGET', K_JOBS, key)
      if not v then return false end
      return {v, redis.call('HGET', K_DATA, key) or '', redis.call('HGET', K_ERRORS, key) or ''}
      """);

  /** ARGV: distinct keys. Each present one becomes {@code TODO}, due now, 0 attempts. Returns how many. */
  static final Script RETRY = script("retry", """
      local now = now_us()
      local n = 0
      for i = 1, #ARGV do
        local key = ARGV[i]
        local r = load(key)
        if r then
          leave(key, r, false)
          r.s, r.a, r.due, r.upd = 0, 0, now, now
          enter(key, r, now)
          n = n + 1
        end
      end
      flush_counts()
      return n
      """);

  /** ARGV: distinct keys. Each present one becomes {@code IGNORED}. Returns how many. */
  static final Script IGNORE = script("ignore", """
      local now = now_us()
      local n = 0
      for i = 1, #ARGV do
        local key = ARGV[i]
        local r = load(key)
        if r then
          leave(key, r, false)
          r.s, r.upd = 70, now
          enter(key, r, now)
          n = n + 1
        end
      end
      flush_counts()
      return n
      """);

  /**
   * ARGV[1] the new rate (jobs/s, 0 = none). Permits earned under the old rate are kept up to the new bucket size
   * (one second of the rate, at least 1); a queue that had no rate starts with an empty bucket.
   */
  static final Script LIMIT_RATE = script("limitRate", """
      local now = now_us()
      local new = tonumber(ARGV[1])
      local bucket = redis.call('HMGET', K_RATE, 'rate', 'permits', 'refilled')
      local rate = tonumber(bucket[1] or '') or 0
      local permits = 0
      if rate > 0 then
        local refilled = tonumber(bucket[3] or '') or now
        permits = math.min(math.max(1, rate),
            (tonumber(bucket[2] or '') or 0) + math.max(0, now - refilled) / 1000000 * rate)
      end
      permits = math.min(permits, math.max(1, new))
      redis.call('HSET', K_RATE, 'rate', ARGV[1], 'permits', string.format('%.17g', permits), 'refilled', fmt(now))
      return 1
      """);

  /**
   * ARGV[1] how many failures. Returns {counts (code, n, ...), oldest TODO due µs or '', rate or '', then state
   * record, data, error, key for each of the most recent failures, newest first}.
   */
  static final Script STATS = script("stats", """
      local out = {redis.call('HGETALL', K_COUNTS)}
      local oldest = redis.call('ZRANGE', K_TODO, 0, 0, 'WITHSCORES')
      out[2] = oldest[2] and fmt(tonumber(oldest[2])) or ''
      out[3] = redis.call('HGET', K_RATE, 'rate') or ''
      local n = tonumber(ARGV[1])
      if n > 0 then
        for _, key in ipairs(redis.call('ZREVRANGE', K_FAILURES, 0, n - 1)) do
          local v = redis.call('HGET', K_JOBS, key)
          if v then
            out[#out + 1] = v
            out[#out + 1] = redis.call('HGET', K_DATA, key) or ''
            out[#out + 1] = redis.call('HGET', K_ERRORS, key) or ''
            out[#out + 1] = key
          end
        end
      end
      return out
      """);

  /**
   * ARGV[1] age µs, [2] max. Deletes up to max {@code FINISHED}/{@code IGNORED} jobs updated at least age ago.
   * Returns how many.
   */
  static final Script PURGE = script("purge", """
      local now = now_us()
      local keys = redis.call('ZRANGEBYSCORE', K_DONE, '-inf', fmt(now - tonumber(ARGV[1])), 'LIMIT', 0,
          tonumber(ARGV[2]))
      local n = 0
      for _, key in ipairs(keys) do
        local r = load(key)
        if r and r.s >= 50 then
          leave(key, r, false)
          redis.call('HDEL', K_JOBS, key)
          redis.call('HDEL', K_DATA, key)
          redis.call('HDEL', K_ERRORS, key)
          n = n + 1
        else
          redis.call('ZREM', K_DONE, key)
        end
      end
      flush_counts()
      return n
      """);

  /** Every script, for preloading. */
  static final List<Script> ALL = List.of(ENQUEUE, CLAIM, EXTEND, FINISH, FINISH_ALL, FAIL, GET, RETRY, IGNORE, LIMIT_RATE,
      STATS, PURGE);
}

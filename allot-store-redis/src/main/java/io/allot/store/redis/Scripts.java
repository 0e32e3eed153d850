package io.allot.store.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The Lua scripts of {@link RedisStore}. Every script names all its keys in KEYS (same slot in Cluster, see
 * {@link RedisKeys}); values, and the channels a script PUBLISHes on (a channel is not a key: PUBLISH from a script
 * is fine in Cluster), travel in ARGV. Tokens are read back with GET rather than formatted from Lua numbers (Lua 5.1
 * prints large numbers in exponent notation).
 */
final class Scripts {
  private Scripts() {}

  record Script(String name, String text, String sha) {
    static Script of(String name, String text) {
      try {
        byte[] d = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
        return new Script(name, text, HexFormat.of().formatHex(d));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * {@code in_chunks(first, f)} calls {@code f(i, j)} for consecutive ranges of ARGV from {@code first} to the end,
   * at most 1000 arguments each (Lua's unpack has a stack limit); 1000 is even, so field-value pairs stay together.
   */
  private static final String CHUNKS = """
      local function in_chunks(first, f)
        local n = #ARGV
        local i = first
        while i <= n do
          local j = math.min(i + 999, n)
          f(i, j)
          i = j + 1
        end
      end
      """;

  /**
   * Effects replication (needed before writing after TIME on Redis &lt; 5; a no-op on 7), {@code time_us()} (Redis
   * time in microseconds, as text) and {@code next_counter(key)}: {@code max(last + 1, time_us + 1)}, so a token is
   * never below the store time in microseconds, even after the key was lost or rolled back (a missing or unreadable
   * value counts as lost), read back with GET (canonical text). Microseconds stay below 2^53: exact as Lua numbers.
   */
  private static final String COUNTER = """
      if redis.replicate_commands then redis.replicate_commands() end
      local function time_us()
        local t = redis.call('TIME')
        return t[1] .. string.sub('000000' .. t[2], -6)
      end
      local function next_counter(key)
        local now_us = time_us()
        local last = tonumber(redis.call('GET', key) or '')
        if not last or last < tonumber(now_us) then
          redis.call('SET', key, now_us)
        end
        redis.call('INCR', key)
        return redis.call('GET', key)
      end
      """;

  /** KEYS[1] list; ARGV[1] value, [2] channel. LPUSH only if absent (portable: no LPOS), then PUBLISH. 1 if added. */
  static final Script ADD_IF_ABSENT = Script.of("addToList", """
      local items = redis.call('LRANGE', KEYS[1], 0, -1)
      for i = 1, #items do
        if items[i] == ARGV[1] then return 0 end
      end
      redis.call('LPUSH', KEYS[1], ARGV[1])
      redis.call('PUBLISH', ARGV[2], 'lpush')
      return 1
      """);

  /** KEYS[1] list; ARGV[1] value, [2] channel. LREM every occurrence; PUBLISH if any. Returns how many. */
  static final Script REMOVE_FROM_LIST = Script.of("removeFromList", """
      local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
      if n > 0 then redis.call('PUBLISH', ARGV[2], 'lrem') end
      return n
      """);

  /** KEYS[1] list; ARGV[1] channel, [2..] values head first. DEL, RPUSH in chunks, PUBLISH. Returns 1. */
  static final Script REPLACE_LIST = Script.of("replaceList", CHUNKS + """
      redis.call('DEL', KEYS[1])
      in_chunks(2, function(i, j) redis.call('RPUSH', KEYS[1], unpack(ARGV, i, j)) end)
      redis.call('PUBLISH', ARGV[1], 'replace')
      return 1
      """);

  /**
   * KEYS[1] lease, KEYS[2] token; ARGV[1] holder, ARGV[2] ttl ms. If free: next token, SET lease "token:holder" PX
   * ttl, return the token; else nil.
   */
  static final Script ACQUIRE = Script.of("tryAcquire", COUNTER + """
      if redis.call('EXISTS', KEYS[1]) == 1 then return false end
      local token = next_counter(KEYS[2])
      redis.call('SET', KEYS[1], token .. ':' .. ARGV[1], 'PX', ARGV[2])
      return token
      """);

  /** KEYS[1] lease; ARGV[1] "token:holder", ARGV[2] ttl ms. Returns 1 if renewed. */
  static final Script RENEW = Script.of("renew", """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return 1
      end
      return 0
      """);

  /** KEYS[1] lease; ARGV[1] "token:holder". Compare-and-delete; returns 1 if deleted. */
  static final Script RELEASE = Script.of("release", """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('DEL', KEYS[1])
        return 1
      end
      return 0
      """);

  /**
   * Shared by {@link #PUBLISH} and {@link #PUBLISH_CHANGES} (after the lease check): {@code set_field(f, v)} writes
   * field f as the pool's (ARGV[2]); when another pool wrote f last, that pool's publication mark is dropped (its
   * next publication is a full one: what it last wrote is no longer all in the hash).
   */
  private static final String SET_FIELD = """
      local function set_field(f, v)
        local o = redis.call('HGET', KEYS[4], f)
        if o and o ~= ARGV[2] then redis.call('HDEL', KEYS[6], o) end
        redis.call('HSET', KEYS[1], f, v)
        if o ~= ARGV[2] then redis.call('HSET', KEYS[4], f, ARGV[2]) end
        redis.call('SADD', KEYS[3], f)
      end
      local function check_hash()
        local t = redis.call('TYPE', KEYS[1]).ok
        if t ~= 'hash' and t ~= 'none' then
          return redis.error_reply('WRONGTYPE ' .. KEYS[1] .. ' holds a ' .. t .. ', not a hash')
        end
        return nil
      end
      local function finish()
        local epoch = redis.call('INCR', KEYS[2])
        redis.call('HSET', KEYS[6], ARGV[2], tostring(epoch))
        redis.call('PUBLISH', ARGV[3], tostring(epoch))
        return {1, epoch}
      end
      """;

  /**
   * KEYS[1] hash, [2] epoch, [3] the pool's field set, [4] owners (field -> pool), [5] lease, [6] publication marks
   * (pool -> epoch of its last publication); ARGV[1] expected lease value "token:holder", [2] pool, [3] channel,
   * [4..] field, value, field, value... The full publication: deletes the pool's fields not given (only those it
   * still owns), writes every given field, increments the epoch, records it as the pool's mark and publishes it.
   * Returns {1, epoch}, or {0, current lease value or ''} when fenced (nothing changed).
   */
  static final Script PUBLISH = Script.of("publish", SET_FIELD + """
      local current = redis.call('GET', KEYS[5])
      if current ~= ARGV[1] then
        return {0, current or ''}
      end
      local bad = check_hash()
      if bad then return bad end
      local pool = ARGV[2]
      local new = {}
      for i = 4, #ARGV, 2 do new[ARGV[i]] = true end
      local old = redis.call('SMEMBERS', KEYS[3])
      for _, f in ipairs(old) do
        if not new[f] and redis.call('HGET', KEYS[4], f) == pool then
          redis.call('HDEL', KEYS[1], f)
          redis.call('HDEL', KEYS[4], f)
        end
      end
      redis.call('DEL', KEYS[3])
      for i = 4, #ARGV, 2 do set_field(ARGV[i], ARGV[i + 1]) end
      return finish()
      """);

  /**
   * The incremental publication: the keys of {@link #PUBLISH}; ARGV[1] expected lease value, [2] pool, [3]
   * channel, [4] the pool's expected mark (the epoch of the publication the changes apply to), [5] n, [6..5+n] the
   * fields to delete, then field, value pairs to write. Applies only if the lease is current, the pool's mark is
   * the expected one and the hash was not deleted under the pool's fields; then deletes the given fields the pool
   * still owns, writes the given ones, increments the epoch, records the mark and publishes the epoch. Returns
   * {1, epoch}; {0, current lease value or ''} when fenced; {2, ''} when the mark does not match (nothing changed:
   * publish in full).
   */
  static final Script PUBLISH_CHANGES = Script.of("publishChanges", SET_FIELD + """
      local current = redis.call('GET', KEYS[5])
      if current ~= ARGV[1] then
        return {0, current or ''}
      end
      local bad = check_hash()
      if bad then return bad end
      if redis.call('HGET', KEYS[6], ARGV[2]) ~= ARGV[4]
          or (redis.call('EXISTS', KEYS[1]) == 0 and redis.call('SCARD', KEYS[3]) > 0) then
        return {2, ''}
      end
      local n = tonumber(ARGV[5])
      for i = 6, 5 + n do
        local f = ARGV[i]
        if redis.call('HGET', KEYS[4], f) == ARGV[2] then
          redis.call('HDEL', KEYS[1], f)
          redis.call('HDEL', KEYS[4], f)
        end
        redis.call('SREM', KEYS[3], f)
      end
      for i = 6 + n, #ARGV, 2 do set_field(ARGV[i], ARGV[i + 1]) end
      return finish()
      """);

  // ---------------------------------------------------------------- membership and ownership

  /**
   * Shared by the membership scripts (after {@link #COUNTER}): the store clock, record parsing and writing, the
   * clock margin and the lost-state guard. Sessions, tokens and ids are compared as strings; only times are Lua
   * numbers (milliseconds fit a double exactly, and {@code %d} prints them without an exponent). A member record is
   * {@code affinity|capacity|session|leaseUntilMillis} followed by an optional {@code |attributes} part that the
   * scripts carry along as opaque text ({@code x}: '' or starting with '|').
   *
   * <p>{@code guard(gkey, ckey, now, guard_ms)} is the pool's lost-state guard (its record: {@link RedisKeys#guard};
   * the pool counter: {@link RedisKeys#counter}). The node's life is its {@code run_id} ({@code INFO server}, read
   * here, per node in a Cluster). If the record names this life and the counter exists, its {@code not_before}
   * holds. Else, a new pool (neither record nor counter) on a node up for at least the guard and never promoted
   * ({@code master_replid2} all zeros) needs no wait; anything else (another run id: restart, failover, rollback;
   * counter or record missing: eviction, partial loss; a young or promoted node) waits {@code now + guard_ms}, since
   * leases granted before may still be trusted by their holders. The record is written, and a missing counter is
   * seeded with the time in microseconds, so the next call finds both. Returns {@code not_before} and, when this
   * call stamped a wait, why (else nil).
   */
  private static final String MEMBERSHIP_PRELUDE = COUNTER + """
      local function now_ms()
        local t = redis.call('TIME')
        return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      end
      local function member(members, id)
        local v = redis.call('HGET', members, id)
        if not v then return nil end
        local a, c, s, u, x = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)(.*)$')
        if not a or (x ~= '' and string.sub(x, 1, 1) ~= '|') then return nil end
        return {a = a, c = c, s = s, u = u, x = x}
      end
      local function record(a, c, s, u, x)
        return a .. '|' .. c .. '|' .. s .. '|' .. u .. x
      end
      local function live(m, session, now)
        return m ~= nil and m.s == session and tonumber(m.u) > now
      end
      local function held(m, session, now, margin)
        return m ~= nil and m.s == session and tonumber(m.u) + margin > now
      end
      local function owner(ownership, unit)
        local v = redis.call('HGET', ownership, unit)
        if not v then return nil end
        local m, s, t = string.match(v, '^(.*)|(%d+)|(%d+)$')
        if not m then return nil end
        return {m = m, s = s, t = t}
      end
      local function until_ms(now, ttl)
        return string.format('%d', now + tonumber(ttl))
      end
      local function info(section)
        local text = redis.pcall('INFO', section)
        if type(text) == 'string' then return text end
        return ''
      end
      local function guard(gkey, ckey, now, guard_ms)
        local server = info('server')
        local run_id = string.match(server, 'run_id:(%x+)') or 'unknown'
        local rec = redis.call('HMGET', gkey, 'incarnation', 'not_before')
        local counted = redis.call('EXISTS', ckey) == 1
        if rec[1] == run_id and counted and tonumber(rec[2]) then return tonumber(rec[2]), nil end
        local why = nil
        if rec[1] and rec[1] ~= run_id then
          why = 'the run id changed (restart, failover or rollback)'
        elseif rec[1] and not counted then
          why = 'the pool counter is missing (evicted or deleted)'
        elseif rec[1] then
          why = 'the guard record is unreadable'
        elseif counted then
          why = 'the guard record is missing (lost, or written by a release without it)'
        else
          local uptime = tonumber(string.match(server, 'uptime_in_seconds:(%d+)') or '0')
          local replid2 = string.match(info('replication'), 'master_replid2:(%x+)') or ''
          if uptime * 1000 < guard_ms then
            why = 'the node is up for less than the guard (' .. uptime .. ' s)'
          elseif not string.find(replid2, '^0+$') then
            why = 'the node was promoted from a replica (or its history is unknown)'
          end
        end
        local nb = now
        if why then nb = now + guard_ms end
        redis.call('HSET', gkey, 'incarnation', run_id, 'not_before', string.format('%d', nb))
        if not counted then redis.call('SET', ckey, time_us()) end
        return nb, why
      end
      """;

  private static Script membership(String name, String body) {
    return Script.of(name, MEMBERSHIP_PRELUDE + body);
  }

  /**
   * KEYS[1] services list P, [2] members, [3] counter, [4] guard; ARGV[1] id, [2] affinity, [3] capacity, [4] ttl
   * ms, [5] members channel, [6] attributes part ('' or '|...'), [7] clock margin ms, [8] guard ms. If the id's
   * record is live or expired less than the margin ago: {"conflict", leaseUntil + margin}, nothing changed. Else the
   * guard, a new session from the counter, the record with lease now + ttl, LPUSH id into P if absent, PUBLISH id;
   * returns {"ok", session, why the guard was stamped with a wait or '', not_before}. P's type is checked (LRANGE)
   * before any write, so WRONGTYPE changes nothing.
   */
  static final Script REGISTER = membership("register", """
      local items = redis.call('LRANGE', KEYS[1], 0, -1)
      local now = now_ms()
      local margin = tonumber(ARGV[7])
      local old = member(KEYS[2], ARGV[1])
      if old ~= nil and tonumber(old.u) + margin > now then
        return {'conflict', string.format('%d', tonumber(old.u) + margin)}
      end
      local nb, why = guard(KEYS[4], KEYS[3], now, tonumber(ARGV[8]))
      local session = next_counter(KEYS[3])
      redis.call('HSET', KEYS[2], ARGV[1], record(ARGV[2], ARGV[3], session, until_ms(now, ARGV[4]), ARGV[6]))
      local present = false
      for i = 1, #items do
        if items[i] == ARGV[1] then present = true break end
      end
      if not present then redis.call('LPUSH', KEYS[1], ARGV[1]) end
      redis.call('PUBLISH', ARGV[5], ARGV[1])
      return {'ok', session, why or '', string.format('%d', nb)}
      """);

  /**
   * KEYS[1] members; ARGV[1] id, [2] session, [3] ttl ms. Extends a live current session to now + ttl (metadata
   * kept); an expired or superseded one is left as it is. Returns 1 if renewed.
   */
  static final Script RENEW_MEMBER = membership("renewMember", """
      local now = now_ms()
      local m = member(KEYS[1], ARGV[1])
      if not live(m, ARGV[2], now) then return 0 end
      redis.call('HSET', KEYS[1], ARGV[1], record(m.a, m.c, m.s, until_ms(now, ARGV[3]), m.x))
      return 1
      """);

  /**
   * KEYS[1] members; ARGV[1] id, [2] session, [3] affinity, [4] capacity, [5] members channel, [6] attributes part.
   * Replaces the metadata of a live current session (lease unchanged), PUBLISH id. Returns 1 if updated.
   */
  static final Script UPDATE_MEMBER = membership("updateMember", """
      local now = now_ms()
      local m = member(KEYS[1], ARGV[1])
      if not live(m, ARGV[2], now) then return 0 end
      redis.call('HSET', KEYS[1], ARGV[1], record(ARGV[3], ARGV[4], m.s, m.u, ARGV[6]))
      redis.call('PUBLISH', ARGV[5], ARGV[1])
      return 1
      """);

  /**
   * KEYS[1] services list P, [2] members; ARGV[1] id, [2] session, [3] members channel, [4] clock margin ms, or ''
   * for none. If the id's recorded session is this one (and, with a margin, its lease ended at least the margin
   * ago): HDEL the record, LREM the id from P, PUBLISH id. Units it owned stay in the ownership hash but are
   * claimable (their owner's session is gone). Returns 1 if removed.
   */
  static final Script DEREGISTER = membership("deregister", """
      local t = redis.call('TYPE', KEYS[1]).ok
      if t ~= 'list' and t ~= 'none' then
        return redis.error_reply('WRONGTYPE ' .. KEYS[1] .. ' holds a ' .. t .. ', not a list')
      end
      local m = member(KEYS[2], ARGV[1])
      if m == nil or m.s ~= ARGV[2] then return 0 end
      if ARGV[4] ~= '' and tonumber(m.u) + tonumber(ARGV[4]) > now_ms() then return 0 end
      redis.call('HDEL', KEYS[2], ARGV[1])
      redis.call('LREM', KEYS[1], 0, ARGV[1])
      redis.call('PUBLISH', ARGV[3], ARGV[1])
      return 1
      """);

  /**
   * KEYS[1] members, [2] ownership, [3] counter, [4] guard; ARGV[1] member, [2] session, [3] clock margin ms,
   * [4] guard ms, [5..] units. Claims each unit, all refused unless the claimant's session is current and live (then
   * the guard is read or stamped); per unit: same session already owns it -> its token; the pool waits out its guard
   * -> refused; owned by another current session whose lease ends less than the margin before now -> refused; else a
   * new token from the counter, recorded as "member|session|token". Returns {why the guard was stamped with a wait
   * or '', not_before}, then one string per unit: its token, or "" if refused.
   */
  static final Script CLAIM_ALL = membership("claimAll", """
      local now = now_ms()
      local margin = tonumber(ARGV[3])
      local me = live(member(KEYS[1], ARGV[1]), ARGV[2], now)
      local nb, why = 0, nil
      if me then nb, why = guard(KEYS[4], KEYS[3], now, tonumber(ARGV[4])) end
      local out = {why or '', string.format('%d', nb)}
      for i = 5, #ARGV do
        local r = ''
        if me then
          local o = owner(KEYS[2], ARGV[i])
          if o ~= nil and o.m == ARGV[1] and o.s == ARGV[2] then
            r = o.t
          elseif now >= nb and (o == nil or not held(member(KEYS[1], o.m), o.s, now, margin)) then
            r = next_counter(KEYS[3])
            redis.call('HSET', KEYS[2], ARGV[i], ARGV[1] .. '|' .. ARGV[2] .. '|' .. r)
          end
        end
        out[#out + 1] = r
      end
      return out
      """);

  /**
   * KEYS[1] ownership, [2] holds; ARGV[1] unit, [2] member, [3] token, [4] owners channel, [5] hold ms (0: none).
   * Compare-and-delete on (member, token); with a hold, HSET holds unit "member|untilMillis"; then PUBLISH unit.
   * Returns 1 if released.
   */
  static final Script RELEASE_UNIT = membership("releaseUnit", """
      local o = owner(KEYS[1], ARGV[1])
      if o == nil or o.m ~= ARGV[2] or o.t ~= ARGV[3] then return 0 end
      redis.call('HDEL', KEYS[1], ARGV[1])
      if tonumber(ARGV[5]) > 0 then
        redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. '|' .. until_ms(now_ms(), ARGV[5]))
      end
      redis.call('PUBLISH', ARGV[4], ARGV[1])
      return 1
      """);

  /**
   * KEYS[1] ownership; ARGV[1] member, [2] owners channel, then unit, token pairs. {@link #RELEASE_UNIT} without a
   * hold for each pair, in one script. Returns the units released, in order.
   */
  static final Script RELEASE_ALL = membership("releaseAll", """
      local out = {}
      for i = 3, #ARGV - 1, 2 do
        local o = owner(KEYS[1], ARGV[i])
        if o ~= nil and o.m == ARGV[1] and o.t == ARGV[i + 1] then
          redis.call('HDEL', KEYS[1], ARGV[i])
          redis.call('PUBLISH', ARGV[2], ARGV[i])
          out[#out + 1] = ARGV[i]
        end
      end
      return out
      """);

  /**
   * KEYS[1] holds. Returns field, value, field, value... of the holds whose time has not run out (Redis time) and
   * deletes the others (and unreadable ones).
   */
  static final Script HOLDS = membership("holds", """
      local now = now_ms()
      local all = redis.call('HGETALL', KEYS[1])
      local out = {}
      for i = 1, #all, 2 do
        local u = tonumber(string.match(all[i + 1], '|(%d+)$') or '')
        if u and u > now then
          out[#out + 1] = all[i]
          out[#out + 1] = all[i + 1]
        else
          redis.call('HDEL', KEYS[1], all[i])
        end
      end
      return out
      """);

  /**
   * KEYS[1] members, [2] ownership; ARGV[1] unit, [2] member, [3] session, [4] token. 1 if the unit is owned by
   * (member, session) with token and that session is current and live.
   */
  static final Script VALID_TOKEN = membership("validToken", """
      local o = owner(KEYS[2], ARGV[1])
      if o == nil or o.t ~= ARGV[4] or o.m ~= ARGV[2] or o.s ~= ARGV[3] then return 0 end
      if live(member(KEYS[1], o.m), o.s, now_ms()) then return 1 end
      return 0
      """);

  static final List<Script> ALL = List.of(ADD_IF_ABSENT, REMOVE_FROM_LIST, REPLACE_LIST, ACQUIRE, RENEW, RELEASE,
      PUBLISH, PUBLISH_CHANGES, REGISTER, RENEW_MEMBER, UPDATE_MEMBER, DEREGISTER, CLAIM_ALL, RELEASE_UNIT, RELEASE_ALL, HOLDS,
      VALID_TOKEN);
}

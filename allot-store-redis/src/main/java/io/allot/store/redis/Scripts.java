package io.allot.store.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The Lua scripts of {@link RedisStore}. Every script names all its keys in KEYS (same slot in Cluster, see
 * {@link RedisKeys}); values travel in ARGV. Tokens are read back with GET rather than formatted from Lua numbers
 * (Lua 5.1 prints large numbers in exponent notation).
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

  /** KEYS[1] list; ARGV[1] value. LPUSH only if absent (portable: no LPOS). Returns 1 if added. */
  static final Script ADD_IF_ABSENT = Script.of("addToList", """
      local items = redis.call('LRANGE', KEYS[1], 0, -1)
      for i = 1, #items do
        if items[i] == ARGV[1] then return 0 end
      end
      redis.call('LPUSH', KEYS[1], ARGV[1])
      return 1
      """);

  /** KEYS[1] list; ARGV values head first. DEL then RPUSH in chunks (Lua's unpack has a stack limit). */
  static final Script REPLACE_LIST = Script.of("replaceList", """
      redis.call('DEL', KEYS[1])
      local n = #ARGV
      local i = 1
      while i <= n do
        local j = math.min(i + 999, n)
        redis.call('RPUSH', KEYS[1], unpack(ARGV, i, j))
        i = j + 1
      end
      return n
      """);

  /**
   * KEYS[1] lease, KEYS[2] token; ARGV[1] holder, ARGV[2] ttl ms. If free: next token (seeded from TIME in
   * microseconds when the token key is missing, so tokens keep increasing after a data loss), SET lease
   * "token:holder" PX ttl, return the token; else nil.
   */
  static final Script ACQUIRE = Script.of("tryAcquire", """
      if redis.call('EXISTS', KEYS[1]) == 1 then return false end
      if redis.call('EXISTS', KEYS[2]) == 0 then
        if redis.replicate_commands then redis.replicate_commands() end
        local t = redis.call('TIME')
        redis.call('SET', KEYS[2], t[1] .. string.sub('000000' .. t[2], -6))
      end
      redis.call('INCR', KEYS[2])
      local token = redis.call('GET', KEYS[2])
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
   * KEYS[1] hash, [2] epoch, [3] the group's field set, [4] owners (field -> group), [5] lease;
   * ARGV[1] expected lease value "token:holder", [2] group, [3] channel, [4..] field, value, field, value...
   * Returns {1, epoch}, or {0, current lease value or ''} when fenced (nothing changed).
   */
  static final Script PUBLISH = Script.of("publish", """
      local current = redis.call('GET', KEYS[5])
      if current ~= ARGV[1] then
        return {0, current or ''}
      end
      local t = redis.call('TYPE', KEYS[1]).ok
      if t ~= 'hash' and t ~= 'none' then
        return redis.error_reply('WRONGTYPE ' .. KEYS[1] .. ' holds a ' .. t .. ', not a hash')
      end
      local group = ARGV[2]
      local new = {}
      for i = 4, #ARGV, 2 do new[ARGV[i]] = true end
      local old = redis.call('SMEMBERS', KEYS[3])
      for _, f in ipairs(old) do
        if not new[f] and redis.call('HGET', KEYS[4], f) == group then
          redis.call('HDEL', KEYS[1], f)
          redis.call('HDEL', KEYS[4], f)
        end
      end
      redis.call('DEL', KEYS[3])
      local n = #ARGV
      local i = 4
      while i <= n do
        local j = math.min(i + 999, n)
        redis.call('HSET', KEYS[1], unpack(ARGV, i, j))
        local fields = {}
        local owners = {}
        for k = i, j, 2 do
          fields[#fields + 1] = ARGV[k]
          owners[#owners + 1] = ARGV[k]
          owners[#owners + 1] = group
        end
        redis.call('SADD', KEYS[3], unpack(fields))
        redis.call('HSET', KEYS[4], unpack(owners))
        i = j + 1
      end
      local epoch = redis.call('INCR', KEYS[2])
      redis.call('PUBLISH', ARGV[3], tostring(epoch))
      return {1, epoch}
      """);

  // ---------------------------------------------------------------- membership and ownership

  /**
   * Shared by the membership scripts: effects replication (needed before writing after TIME on Redis &lt; 5; a no-op
   * on 7), the store clock, the pool counter, and record parsing. Sessions, tokens and ids are compared as strings
   * (the counter is read back with GET, so its text is canonical); only times are Lua numbers (milliseconds fit a
   * double exactly, and {@code %d} prints them without an exponent).
   */
  private static final String MEMBERSHIP_PRELUDE = """
      if redis.replicate_commands then redis.replicate_commands() end
      local function now_ms()
        local t = redis.call('TIME')
        return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      end
      local function next_counter(key)
        if redis.call('EXISTS', key) == 0 then
          local t = redis.call('TIME')
          redis.call('SET', key, t[1] .. string.sub('000000' .. t[2], -6))
        end
        redis.call('INCR', key)
        return redis.call('GET', key)
      end
      local function member(members, id)
        local v = redis.call('HGET', members, id)
        if not v then return nil end
        local a, c, s, u = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)$')
        if not a then return nil end
        return {a = a, c = c, s = s, u = u}
      end
      local function live(m, session, now)
        return m ~= nil and m.s == session and tonumber(m.u) > now
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
      """;

  private static Script membership(String name, String body) {
    return Script.of(name, MEMBERSHIP_PRELUDE + body);
  }

  /**
   * KEYS[1] services list P, [2] members, [3] counter; ARGV[1] id, [2] affinity, [3] capacity, [4] ttl ms,
   * [5] members channel. New session from the counter, record with lease now + ttl, LPUSH id into P if absent,
   * PUBLISH id. Returns the session. P's type is checked (LRANGE) before any write, so WRONGTYPE changes nothing.
   */
  static final Script REGISTER = membership("register", """
      local items = redis.call('LRANGE', KEYS[1], 0, -1)
      local now = now_ms()
      local session = next_counter(KEYS[3])
      redis.call('HSET', KEYS[2], ARGV[1],
        ARGV[2] .. '|' .. ARGV[3] .. '|' .. session .. '|' .. until_ms(now, ARGV[4]))
      local present = false
      for i = 1, #items do
        if items[i] == ARGV[1] then present = true break end
      end
      if not present then redis.call('LPUSH', KEYS[1], ARGV[1]) end
      redis.call('PUBLISH', ARGV[5], ARGV[1])
      return session
      """);

  /**
   * KEYS[1] members; ARGV[1] id, [2] session, [3] ttl ms. Extends a live current session to now + ttl; an expired
   * or superseded one is left as it is. Returns 1 if renewed.
   */
  static final Script RENEW_MEMBER = membership("renewMember", """
      local now = now_ms()
      local m = member(KEYS[1], ARGV[1])
      if not live(m, ARGV[2], now) then return 0 end
      redis.call('HSET', KEYS[1], ARGV[1], m.a .. '|' .. m.c .. '|' .. m.s .. '|' .. until_ms(now, ARGV[3]))
      return 1
      """);

  /**
   * KEYS[1] members; ARGV[1] id, [2] session, [3] affinity, [4] capacity, [5] members channel. Changes affinity and
   * capacity of a live current session (lease unchanged), PUBLISH id. Returns 1 if updated.
   */
  static final Script UPDATE_MEMBER = membership("updateMember", """
      local now = now_ms()
      local m = member(KEYS[1], ARGV[1])
      if not live(m, ARGV[2], now) then return 0 end
      redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. '|' .. ARGV[4] .. '|' .. m.s .. '|' .. m.u)
      redis.call('PUBLISH', ARGV[5], ARGV[1])
      return 1
      """);

  /**
   * KEYS[1] services list P, [2] members; ARGV[1] id, [2] session, [3] members channel. If the id's recorded
   * session is this one (live or not): HDEL the record, LREM the id from P, PUBLISH id. Units it owned stay in the
   * ownership hash but are claimable (their owner's session is gone). Returns 1 if removed.
   */
  static final Script DEREGISTER = membership("deregister", """
      local t = redis.call('TYPE', KEYS[1]).ok
      if t ~= 'list' and t ~= 'none' then
        return redis.error_reply('WRONGTYPE ' .. KEYS[1] .. ' holds a ' .. t .. ', not a list')
      end
      local m = member(KEYS[2], ARGV[1])
      if m == nil or m.s ~= ARGV[2] then return 0 end
      redis.call('HDEL', KEYS[2], ARGV[1])
      redis.call('LREM', KEYS[1], 0, ARGV[1])
      redis.call('PUBLISH', ARGV[3], ARGV[1])
      return 1
      """);

  /**
   * KEYS[1] members, [2] ownership, [3] counter; ARGV[1] member, [2] session, [3..] units. Claims each unit, all
   * refused unless the claimant's session is current and live; per unit: same session already owns it -> its token;
   * owned by another live current session -> refused; else a new token from the counter, recorded as
   * "member|session|token". Returns one string per unit: its token, or "" if refused.
   */
  static final Script CLAIM_ALL = membership("claimAll", """
      local now = now_ms()
      local out = {}
      local me = live(member(KEYS[1], ARGV[1]), ARGV[2], now)
      for i = 3, #ARGV do
        local r = ''
        if me then
          local o = owner(KEYS[2], ARGV[i])
          if o ~= nil and o.m == ARGV[1] and o.s == ARGV[2] then
            r = o.t
          elseif o == nil or not live(member(KEYS[1], o.m), o.s, now) then
            r = next_counter(KEYS[3])
            redis.call('HSET', KEYS[2], ARGV[i], ARGV[1] .. '|' .. ARGV[2] .. '|' .. r)
          end
        end
        out[#out + 1] = r
      end
      return out
      """);

  /**
   * KEYS[1] ownership; ARGV[1] unit, [2] member, [3] token, [4] owners channel. Compare-and-delete on (member,
   * token), then PUBLISH unit. Returns 1 if released.
   */
  static final Script RELEASE_UNIT = membership("releaseUnit", """
      local o = owner(KEYS[1], ARGV[1])
      if o == nil or o.m ~= ARGV[2] or o.t ~= ARGV[3] then return 0 end
      redis.call('HDEL', KEYS[1], ARGV[1])
      redis.call('PUBLISH', ARGV[4], ARGV[1])
      return 1
      """);

  /** KEYS[1] members, [2] ownership; ARGV[1] unit, [2] token. 1 if token is the unit's and its owner is live. */
  static final Script VALID_TOKEN = membership("validToken", """
      local o = owner(KEYS[2], ARGV[1])
      if o == nil or o.t ~= ARGV[2] then return 0 end
      if live(member(KEYS[1], o.m), o.s, now_ms()) then return 1 end
      return 0
      """);

  static final List<Script> ALL = List.of(ADD_IF_ABSENT, REPLACE_LIST, ACQUIRE, RENEW, RELEASE, PUBLISH, REGISTER,
      RENEW_MEMBER, UPDATE_MEMBER, DEREGISTER, CLAIM_ALL, RELEASE_UNIT, VALID_TOKEN);
}

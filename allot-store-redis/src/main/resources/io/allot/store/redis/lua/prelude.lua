-- prelude.lua: the shared prelude, sent first in every script of the Redis store (Script.load puts the script's
-- role prelude, if any, and then the script's own file after it). It says once, for every script:
--
--   * Effects replication: a script that read TIME may then write (needed on Redis < 5; a no-op from 5 on).
--   * The store clock is Redis TIME, read where a script asks for it: now_us() in microseconds, now_ms() in
--     milliseconds (floored), both Lua numbers. Microseconds (about 2^51 today) are exact below 2^53 (the year
--     2255), and so is the division to milliseconds.
--   * Numbers are written with fmt (%.0f): integers as plain decimal text, never with an exponent (Lua 5.1's
--     tostring writes 1.7e+15).
--   * The token rule: next_token(previous, floor) = max(previous + 1, floor), or floor when there is no previous
--     token (missing or unreadable: lost). A token is thus never below the store time, even after the value it
--     follows was lost or rolled back. A job's lock token takes floor = now_us() (as the memory and PostgreSQL
--     queues: greatest(previous + 1, µs)); a counter's token (sessions, unit tokens, lease tokens: next_counter)
--     takes floor = now_us() + 1, strictly above the store time (as the other stores: greatest(last + 1, µs + 1)).
--   * Type errors (wrong_type) and commands with more arguments than Lua's unpack takes (chunked) read the same
--     in every script.

if redis.replicate_commands then redis.replicate_commands() end

-- the store time in microseconds
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- the store time in milliseconds
local function now_ms()
  return math.floor(now_us() / 1000)
end

-- n as decimal text without exponent
local function fmt(n) return string.format('%.0f', n) end

-- the token rule (above): the token after previous (nil: none, or lost), never below floor
local function next_token(previous, floor)
  if previous and previous + 1 > floor then return previous + 1 end
  return floor
end

-- the next token of the counter at key (a missing or unreadable value counts as lost), by the token rule with the
-- floor now_us() + 1, as the counter's text: when the clock is ahead, the counter is first set to now; INCR (exact for
-- any integer Redis holds) then gives previous + 1 or now + 1, and GET reads it back as canonical decimal text
local function next_counter(key)
  local now = now_us()
  if next_token(tonumber(redis.call('GET', key)), now + 1) == now + 1 then
    redis.call('SET', key, fmt(now))
  end
  redis.call('INCR', key)
  return redis.call('GET', key)
end

-- an error reply if key holds a type other than want (none is fine), else nil
local function wrong_type(key, want)
  local t = redis.call('TYPE', key).ok
  if t ~= want and t ~= 'none' then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. t .. ', not a ' .. want)
  end
  return nil
end

-- redis.call(cmd, key, args[first], ..., args[#args]) (first: 1 if nil) in chunks of at most 1000 arguments (Lua's
-- unpack has a stack limit; 1000 is even, so field-value and score-member pairs stay together); returns the
-- replies' elements, concatenated (nothing for replies that are not arrays)
local function chunked(cmd, key, args, first)
  local out = {}
  local n = #args
  local i = first or 1
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

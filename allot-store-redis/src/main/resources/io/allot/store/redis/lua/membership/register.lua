-- membership/register: RedisMembership.register.
-- KEYS[1] the services list P, [2] members, [3] counter, [4] guard; ARGV[1] id, [2] affinity, [3] capacity, [4] ttl
-- ms, [5] the members channel, [6] the attributes part ('' or '|...'), [7] clock margin ms, [8] guard ms.
-- If the id's record is live or expired less than the margin ago: {'conflict', leaseUntil + margin}, nothing
-- changed. Else the guard, a new session from the counter, the record with lease now + ttl, LPUSH id into P if
-- absent, PUBLISH id; returns {'ok', session, why the guard was stamped with a wait or '', not_before}. P's type is
-- checked (LRANGE) before any write, so WRONGTYPE changes nothing.

local items = redis.call('LRANGE', KEYS[1], 0, -1)
local now = now_ms()
local margin = tonumber(ARGV[7])
local old = member(KEYS[2], ARGV[1])
if old ~= nil and tonumber(old.u) + margin > now then
  return {'conflict', fmt(tonumber(old.u) + margin)}
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
return {'ok', session, why or '', fmt(nb)}

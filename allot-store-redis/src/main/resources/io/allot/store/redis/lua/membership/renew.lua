-- membership/renew: RedisMembership.renew.
-- KEYS[1] members; ARGV[1] id, [2] session, [3] ttl ms.
-- Extends a live current session to now + ttl (metadata kept); an expired or superseded one is left as it is.
-- Returns 1 if renewed, else 0.

local now = now_ms()
local m = member(KEYS[1], ARGV[1])
if not live(m, ARGV[2], now) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], record(m.a, m.c, m.s, until_ms(now, ARGV[3]), m.x))
return 1

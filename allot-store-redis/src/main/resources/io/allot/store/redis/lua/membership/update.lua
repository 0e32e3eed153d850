-- membership/update: RedisMembership.update.
-- KEYS[1] members; ARGV[1] id, [2] session, [3] affinity, [4] capacity, [5] the members channel, [6] the
-- attributes part.
-- Replaces the metadata of a live current session (lease unchanged), PUBLISH id. Returns 1 if updated, else 0.

local now = now_ms()
local m = member(KEYS[1], ARGV[1])
if not live(m, ARGV[2], now) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], record(ARGV[3], ARGV[4], m.s, m.u, ARGV[6]))
redis.call('PUBLISH', ARGV[5], ARGV[1])
return 1

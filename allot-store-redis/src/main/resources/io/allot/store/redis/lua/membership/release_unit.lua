-- membership/release_unit: RedisOwnership.release (with or without a hold).
-- KEYS[1] ownership, [2] holds; ARGV[1] unit, [2] member, [3] token, [4] the owners channel, [5] hold ms (0: none).
-- Compare-and-delete on (member, token); with a hold, HSET holds unit "member|untilMillis"; then PUBLISH unit.
-- Returns 1 if released, else 0.

local o = owner(KEYS[1], ARGV[1])
if o == nil or o.m ~= ARGV[2] or o.t ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
if tonumber(ARGV[5]) > 0 then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. '|' .. until_ms(now_ms(), ARGV[5]))
end
redis.call('PUBLISH', ARGV[4], ARGV[1])
return 1

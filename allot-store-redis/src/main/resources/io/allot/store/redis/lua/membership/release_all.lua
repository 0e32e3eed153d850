-- membership/release_all: RedisOwnership.releaseAll.
-- KEYS[1] ownership; ARGV[1] member, [2] the owners channel, then unit, token pairs.
-- membership/release_unit without a hold for each pair, in one script. Returns the units released, in order.

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

-- routes/set_weights: RedisRouteWeights.set.
-- KEYS[1] the pool's weights hash, [2] its revision counter; ARGV[1] the channel, then version, weight pairs.
-- DEL the hash, HSET the given weights, INCR the revision and PUBLISH it. Returns the new revision.

redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
local revision = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[1], tostring(revision))
return revision

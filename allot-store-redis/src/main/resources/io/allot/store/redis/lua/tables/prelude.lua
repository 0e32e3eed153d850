-- tables/prelude.lua: the prelude of the publication scripts (after prelude.lua), after their lease check.
-- KEYS of both: [1] the distribution hash (the table), [2] its epoch, [3] the pool's field set, [4] owners (field ->
-- pool), [5] the table lease, [6] publication marks (pool -> epoch of its last publication); ARGV[1] the expected
-- lease value "token:holder", [2] the pool, [3] the table's channel, then the script's own.

-- writes field f as the pool's; when another pool wrote f last, that pool's publication mark is dropped (its next
-- publication is a full one: what it last wrote is no longer all in the hash)
local function set_field(f, v)
  local o = redis.call('HGET', KEYS[4], f)
  if o and o ~= ARGV[2] then redis.call('HDEL', KEYS[6], o) end
  redis.call('HSET', KEYS[1], f, v)
  if o ~= ARGV[2] then redis.call('HSET', KEYS[4], f, ARGV[2]) end
  redis.call('SADD', KEYS[3], f)
end

-- increments the epoch, records it as the pool's mark and publishes it; returns {1, epoch}
local function finish()
  local epoch = redis.call('INCR', KEYS[2])
  redis.call('HSET', KEYS[6], ARGV[2], tostring(epoch))
  redis.call('PUBLISH', ARGV[3], tostring(epoch))
  return {1, epoch}
end
-- what every publication checks first: {0, current lease value or ''} when the lease is not ARGV[1] (fenced), the
-- error of wrong_type when the table is no hash; nil when the publication may go on
local function refused()
  local current = redis.call('GET', KEYS[5])
  if current ~= ARGV[1] then
    return {0, current or ''}
  end
  return wrong_type(KEYS[1], 'hash')
end
-- deletes field f of the table if pool still owns it
local function drop_owned(f, pool)
  if redis.call('HGET', KEYS[4], f) == pool then
    redis.call('HDEL', KEYS[1], f)
    redis.call('HDEL', KEYS[4], f)
  end
end

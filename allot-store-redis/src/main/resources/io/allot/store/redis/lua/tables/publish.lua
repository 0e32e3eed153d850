-- tables/publish: RedisTables.publish, the full publication.
-- KEYS as in tables/prelude.lua; ARGV[1] expected lease value, [2] pool, [3] channel, [4..] field, value, field,
-- value...
-- Deletes the pool's fields not given (only those it still owns), writes every given field, increments the epoch,
-- records it as the pool's mark and publishes it. Returns {1, epoch}, or {0, current lease value or ''} when fenced
-- (nothing changed).

local current = redis.call('GET', KEYS[5])
if current ~= ARGV[1] then
  return {0, current or ''}
end
local bad = wrong_type(KEYS[1], 'hash')
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

-- tables/publish_changes: RedisTables.publish, the incremental publication.
-- KEYS as in tables/prelude.lua; ARGV[1] expected lease value, [2] pool, [3] channel, [4] the pool's expected mark
-- (the epoch of the publication the changes apply to), [5] n, [6..5+n] the fields to delete, then field, value
-- pairs to write.
-- Applies only if the lease is current, the pool's mark is the expected one and the hash was not deleted under the
-- pool's fields; then deletes the given fields the pool still owns, writes the given ones, increments the epoch,
-- records the mark and publishes the epoch. Returns {1, epoch}; {0, current lease value or ''} when fenced; {2, ''}
-- when the mark does not match (nothing changed: publish in full).

local refusal = refused()
if refusal then return refusal end
if redis.call('HGET', KEYS[6], ARGV[2]) ~= ARGV[4]
    or (redis.call('EXISTS', KEYS[1]) == 0 and redis.call('SCARD', KEYS[3]) > 0) then
  return {2, ''}
end
local n = tonumber(ARGV[5])
for i = 6, 5 + n do
  local f = ARGV[i]
  drop_owned(f, ARGV[2])
  redis.call('SREM', KEYS[3], f)
end
for i = 6 + n, #ARGV, 2 do set_field(ARGV[i], ARGV[i + 1]) end
return finish()

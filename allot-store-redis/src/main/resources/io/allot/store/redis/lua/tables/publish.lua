-- tables/publish: RedisTables.publish, the full publication.
-- KEYS as in tables/prelude.lua; ARGV[1] expected lease value, [2] pool, [3] channel, [4..] field, value, field,
-- value...
-- Deletes the pool's fields not given (only those it still owns), writes every given field, increments the epoch,
-- records it as the pool's mark and publishes it. Returns {1, epoch}, or {0, current lease value or ''} when fenced
-- (nothing changed).

local refusal = refused()
if refusal then return refusal end
local pool = ARGV[2]
local new = {}
for i = 4, #ARGV, 2 do new[ARGV[i]] = true end
local old = redis.call('SMEMBERS', KEYS[3])
for _, f in ipairs(old) do
  if not new[f] then drop_owned(f, pool) end
end
redis.call('DEL', KEYS[3])
for i = 4, #ARGV, 2 do set_field(ARGV[i], ARGV[i + 1]) end
return finish()

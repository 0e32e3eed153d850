-- tasks/create: RedisTaskSpecs.create.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] name, [3] args, [4] cost.
-- A live spec: EXISTS (same args and cost) or CONFLICT, unchanged. Else (none, or a tombstone) a new live spec,
-- revision the tombstone's + 1 or 1, its run and fault cleared: CREATED.

local old = load()
if old and old.del == '0' then
  local same = redis.call('HGET', K_ARGS, NAME) == ARGV[3] and old.cost == ARGV[4]
  return reply(same and 'EXISTS' or 'CONFLICT', old)
end
local now = fmt(now_ms())
local s = {rev = old and fmt(tonumber(old.rev) + 1) or '1', cost = ARGV[4], cr = now, up = now, del = '0'}
save(s)
redis.call('HSET', K_ARGS, NAME, ARGV[3])
redis.call('HDEL', K_RUNS, NAME)
redis.call('HDEL', K_FAULTS, NAME)
changed()
return reply('CREATED', s)

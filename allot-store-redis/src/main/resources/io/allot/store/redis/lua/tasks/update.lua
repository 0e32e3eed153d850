-- tasks/update: RedisTaskSpecs.update.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] name, [3] args, [4] cost ('' keeps the spec's:
-- RedisTaskSpecs.updateArgs).
-- NONE without a live spec; SAME if nothing changes; else UPDATED (revision + 1).

local s = load()
if not s or s.del ~= '0' then return {'NONE'} end
local cost = ARGV[4]
if cost == '' then cost = s.cost end
if redis.call('HGET', K_ARGS, NAME) == ARGV[3] and s.cost == cost then return reply('SAME', s) end
s.rev = fmt(tonumber(s.rev) + 1)
s.cost = cost
s.up = fmt(now_ms())
save(s)
redis.call('HSET', K_ARGS, NAME, ARGV[3])
changed()
return reply('UPDATED', s)

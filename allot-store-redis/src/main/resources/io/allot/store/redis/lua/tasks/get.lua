-- tasks/get: RedisTaskSpecs.get.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] name.
-- The spec NAME: SAME, or NONE.

local s = load()
if not s then return {'NONE'} end
return reply('SAME', s)

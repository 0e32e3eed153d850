-- tasks/delete: RedisTaskSpecs.delete.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] name.
-- NONE without a spec; SAME for a tombstone; else DELETED (deleted and updated now).

local s = load()
if not s then return {'NONE'} end
if s.del ~= '0' then return reply('SAME', s) end
local now = fmt(now_ms())
s.up = now
s.del = now
save(s)
changed()
return reply('DELETED', s)

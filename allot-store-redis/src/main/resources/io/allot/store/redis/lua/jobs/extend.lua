-- jobs/extend: RedisJobQueue.extend.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] key, [2] token, [3] lock TTL µs.
-- Extends a held lock to now + TTL. Returns 1 if extended, else 0.

local key = ARGV[1]
local r = load(key)
if not held(r, ARGV[2]) then return 0 end
local now = now_us()
leave(key, r, false)
r.due = now + tonumber(ARGV[3])
enter(key, r, now)
return 1

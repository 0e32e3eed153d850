-- jobs/finish: RedisJobQueue.finish.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] key, [2] token, [3] clock margin µs.
-- Finishes the job if the token holds its lock. Returns 1 if finished, else 0. (A lock that has not expired by the
-- margin cannot have been moved into ready by a claim: no ZREM there; after a backward step of the store clock, a
-- member left behind is skipped and dropped by claims.)

local key = ARGV[1]
local r = load(key)
if not held(r, ARGV[2]) then return 0 end
local now = now_us()
leave(key, r, r.due + tonumber(ARGV[3]) > now)
r.s = 50
r.upd = now
enter(key, r, now)
flush_counts()
return 1

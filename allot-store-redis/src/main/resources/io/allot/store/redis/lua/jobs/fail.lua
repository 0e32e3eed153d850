-- jobs/fail: RedisJobQueue.fail.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] key, [2] token, [3] error, [4] backoff µs.
-- If the token holds the lock: FAILED due after the backoff (returns 20), or IGNORED on the last attempt (returns
-- 70); else 0.

local key = ARGV[1]
local r = load(key)
if not held(r, ARGV[2]) then return 0 end
local now = now_us()
leave(key, r, false)
set_error(key, ARGV[3])
r.upd = now
if r.a >= r.m then
  r.s = 70
else
  r.s = 20
  r.due = now + tonumber(ARGV[4])
end
enter(key, r, now)
flush_counts()
return r.s

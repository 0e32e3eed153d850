-- jobs/retry: RedisJobQueue.retry.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV: distinct keys.
-- Each present one becomes TODO, due now, 0 attempts. Returns how many.

local now = now_us()
local n = 0
for i = 1, #ARGV do
  local key = ARGV[i]
  local r = load(key)
  if r then
    leave(key, r, false)
    r.s, r.a, r.due, r.upd = 0, 0, now, now
    enter(key, r, now)
    n = n + 1
  end
end
flush_counts()
return n

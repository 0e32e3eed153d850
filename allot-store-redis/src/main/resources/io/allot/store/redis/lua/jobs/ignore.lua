-- jobs/ignore: RedisJobQueue.ignore.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV: distinct keys.
-- Each present one becomes IGNORED. Returns how many.

local now = now_us()
local n = 0
for i = 1, #ARGV do
  local key = ARGV[i]
  local r = load(key)
  if r then
    leave(key, r, false)
    r.s, r.upd = 70, now
    enter(key, r, now)
    n = n + 1
  end
end
flush_counts()
return n

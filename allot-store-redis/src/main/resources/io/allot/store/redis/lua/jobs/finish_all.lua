-- jobs/finish_all: RedisJobQueue.finishAll.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] clock margin µs, then key, token, key, token, ...
-- Finishes each job whose token holds its lock, as jobs/finish does one. Returns 1 or 0 per job, in order.

local margin = tonumber(ARGV[1])
local now = now_us()
local out = {}
for i = 2, #ARGV, 2 do
  local key = ARGV[i]
  local r = load(key)
  if held(r, ARGV[i + 1]) then
    leave(key, r, r.due + margin > now)
    r.s = 50
    r.upd = now
    enter(key, r, now)
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
flush_counts()
return out

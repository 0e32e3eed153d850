-- jobs/give_back: RedisJobQueue.giveBack.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] worker, then key, token, key, token, ...
-- Each job the worker still holds under its token becomes TODO, due now, with one attempt fewer (the one its claim
-- started); its token, error and worker are kept, so the next claim's token is larger. Others are left alone.
-- Returns how many were given back.

local worker = ARGV[1]
return change_each(function(r, now)
  r.s = 0
  r.a = math.max(0, r.a - 1)
  r.due = now
  r.upd = now
end, function(r, i) return not (held(r, ARGV[i + 1]) and r.w == worker) end, 2, 2)

-- jobs/retry: RedisJobQueue.retry.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV: distinct keys.
-- Each present one becomes TODO, due now, 0 attempts. Returns how many.

return change_each(function(r, now)
  r.s, r.a, r.due, r.upd = 0, 0, now, now
end)

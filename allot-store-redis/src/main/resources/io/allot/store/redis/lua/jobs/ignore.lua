-- jobs/ignore: RedisJobQueue.ignore.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV: distinct keys.
-- Each present one becomes IGNORED. Returns how many.

return change_each(function(r, now)
  r.s, r.upd = 70, now
end)

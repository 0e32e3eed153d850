-- jobs/ignore: RedisJobQueue.ignore.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV: distinct keys.
-- Each present one becomes IGNORED, unless it is FINISHED (it ran: left as it is). Returns how many became (or
-- stayed) IGNORED.

return change_each(function(r, now)
  r.s, r.upd = 70, now
end, function(r) return r.s == 50 end)

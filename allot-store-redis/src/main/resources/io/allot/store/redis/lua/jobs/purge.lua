-- jobs/purge: RedisJobQueue.purge.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] age µs, [2] max.
-- Deletes up to max FINISHED/IGNORED jobs updated at least age ago. Returns how many.

local now = now_us()
local keys = redis.call('ZRANGEBYSCORE', K_DONE, '-inf', fmt(now - tonumber(ARGV[1])), 'LIMIT', 0,
    tonumber(ARGV[2]))
local n = 0
for _, key in ipairs(keys) do
  local r = load(key)
  if r and r.s >= 50 then
    leave(key, r, false)
    redis.call('HDEL', K_JOBS, key)
    redis.call('HDEL', K_DATA, key)
    redis.call('HDEL', K_ERRORS, key)
    n = n + 1
  else
    redis.call('ZREM', K_DONE, key)
  end
end
flush_counts()
return n

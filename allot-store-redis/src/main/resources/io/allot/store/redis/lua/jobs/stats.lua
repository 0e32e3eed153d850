-- jobs/stats: RedisJobQueue.stats.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] how many failures.
-- Returns {counts (code, n, ...), oldest TODO due µs or '', rate or '', then state record, data, error, key for each
-- of the most recent failures, newest first}.

local out = {redis.call('HGETALL', K_COUNTS)}
local oldest = redis.call('ZRANGE', K_TODO, 0, 0, 'WITHSCORES')
out[2] = oldest[2] and fmt(tonumber(oldest[2])) or ''
out[3] = redis.call('HGET', K_RATE, 'rate') or ''
local n = tonumber(ARGV[1])
if n > 0 then
  for _, key in ipairs(redis.call('ZREVRANGE', K_FAILURES, 0, n - 1)) do
    local v = redis.call('HGET', K_JOBS, key)
    if v then
      out[#out + 1] = v
      out[#out + 1] = redis.call('HGET', K_DATA, key) or ''
      out[#out + 1] = redis.call('HGET', K_ERRORS, key) or ''
      out[#out + 1] = key
    end
  end
end
return out

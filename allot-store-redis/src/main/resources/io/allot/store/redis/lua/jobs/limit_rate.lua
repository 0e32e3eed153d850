-- jobs/limit_rate: RedisJobQueue.limitRate.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] the new rate (jobs/s, 0 = none).
-- Permits earned under the old rate are kept up to the new bucket size (one second of the rate, at least 1); a
-- queue that had no rate starts with an empty bucket. Returns 1.

local now = now_us()
local new = tonumber(ARGV[1])
local _, permits = bucket(now)
permits = math.min(permits, math.max(1, new))
redis.call('HSET', K_RATE, 'rate', ARGV[1], 'permits', string.format('%.17g', permits), 'refilled', fmt(now))
return 1

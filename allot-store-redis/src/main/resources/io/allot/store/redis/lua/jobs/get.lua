-- jobs/get: RedisJobQueue.get.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] key.
-- Returns {state record, data, error}, or nil if the queue has no such job.

local key = ARGV[1]
local v = redis.call('HGET', K_JOBS, key)
if not v then return false end
return {v, redis.call('HGET', K_DATA, key) or '', redis.call('HGET', K_ERRORS, key) or ''}

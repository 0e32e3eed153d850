-- jobs/enqueue: RedisJobQueue.enqueue.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV: key, data, priority, max attempts, delay µs, repeated (distinct
-- keys).
-- Adds each key not in jobs yet (one HMGET tells which), as TODO due now + delay. Returns how many were added.

local now = now_us()
local now_text = fmt(now)
local keys = {}
for i = 1, #ARGV, 5 do keys[#keys + 1] = ARGV[i] end
local present = chunked('HMGET', K_JOBS, keys)
local recs, data, ready, delayed, todo = {}, {}, {}, {}, {}
local added = 0
for idx = 1, #keys do
  if not present[idx] then
    local i = idx * 5 - 4
    local key = keys[idx]
    -- priority and max attempts arrive as canonical decimal text (Integer.toString) and are stored as they came;
    -- a job due now (no delay) takes the time formatted once per call
    local priority, max_attempts, delay = ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4])
    local due = delay == 0 and now_text or fmt(now + delay)
    recs[#recs + 1] = key
    recs[#recs + 1] = '0|0|' .. max_attempts .. '|' .. priority .. '|' .. due .. '|' .. now_text .. '|0|'
    if ARGV[i + 1] ~= '' then
      data[#data + 1] = key
      data[#data + 1] = ARGV[i + 1]
    end
    if delay <= 0 then
      ready[#ready + 1] = negated(priority)
      ready[#ready + 1] = pad17(due) .. key
    else
      delayed[#delayed + 1] = due
      delayed[#delayed + 1] = key
    end
    todo[#todo + 1] = due
    todo[#todo + 1] = key
    added = added + 1
  end
end
chunked('HSET', K_JOBS, recs)
chunked('HSET', K_DATA, data)
chunked('ZADD', K_READY, ready)
chunked('ZADD', K_DELAYED, delayed)
chunked('ZADD', K_TODO, todo)
if added > 0 then redis.call('HINCRBY', K_COUNTS, 0, added) end
return added

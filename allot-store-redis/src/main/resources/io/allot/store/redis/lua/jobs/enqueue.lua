-- jobs/enqueue: RedisJobQueue.enqueue.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV: key, data, priority, max attempts, delay µs, repeated (distinct
-- keys).
-- Adds each key not in jobs yet (one HMGET tells which), as TODO due now + delay. Returns how many were added.

local now = now_us()
local keys = {}
for i = 1, #ARGV, 5 do keys[#keys + 1] = ARGV[i] end
local present = chunked('HMGET', K_JOBS, keys)
local recs, data, ready, delayed, todo = {}, {}, {}, {}, {}
local added = 0
for idx = 1, #keys do
  if not present[idx] then
    local i = idx * 5 - 4
    local key = keys[idx]
    local r = {s = 0, a = 0, m = tonumber(ARGV[i + 3]), p = tonumber(ARGV[i + 2]),
               due = now + tonumber(ARGV[i + 4]), upd = now, tok = 0, w = ''}
    recs[#recs + 1] = key
    recs[#recs + 1] = record(r)
    if ARGV[i + 1] ~= '' then
      data[#data + 1] = key
      data[#data + 1] = ARGV[i + 1]
    end
    if r.due <= now then
      ready[#ready + 1] = -r.p
      ready[#ready + 1] = member(key, r)
    else
      delayed[#delayed + 1] = fmt(r.due)
      delayed[#delayed + 1] = key
    end
    todo[#todo + 1] = fmt(r.due)
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

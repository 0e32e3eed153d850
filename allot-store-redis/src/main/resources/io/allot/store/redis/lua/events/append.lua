-- events/append: RedisEvents.append.
-- KEYS[1] the id counter, [2] the data hash (id -> "<time ms>:<payload>"), [3] the bucket hash (id -> its pool's
-- sorted set), [4] the sorted set of every id, [5] the sorted set of ids by time, [6] the event's pool's sorted set
-- (score and member the id); all in the slot {allot:events}.
-- ARGV[1] the payload (RedisEvents' encoding), [2] the most events a pool keeps, [3] the oldest age kept in ms.
-- Takes the next id (the token rule: never below the store time in µs, so ids keep growing after a loss), records
-- the event, then deletes the pool's oldest beyond ARGV[2] and (at most 1000 per append) every event older than
-- ARGV[3]. Returns {id as text, time ms}.

local id = next_counter(KEYS[1])
local t = now_ms()
redis.call('HSET', KEYS[2], id, fmt(t) .. ':' .. ARGV[1])
redis.call('HSET', KEYS[3], id, KEYS[6])
redis.call('ZADD', KEYS[4], id, id)
redis.call('ZADD', KEYS[5], t, id)
redis.call('ZADD', KEYS[6], id, id)

local function drop(old, bucket)
  redis.call('HDEL', KEYS[2], old)
  redis.call('HDEL', KEYS[3], old)
  redis.call('ZREM', KEYS[4], old)
  redis.call('ZREM', KEYS[5], old)
  if bucket then redis.call('ZREM', bucket, old) end
end

local over = redis.call('ZCARD', KEYS[6]) - tonumber(ARGV[2])
if over > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[6], 0, over - 1)) do
    drop(old, KEYS[6])
  end
end

local expired = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', '(' .. fmt(t - tonumber(ARGV[3])), 'LIMIT', 0, 1000)
for _, old in ipairs(expired) do
  drop(old, redis.call('HGET', KEYS[3], old))
end
return {id, t}

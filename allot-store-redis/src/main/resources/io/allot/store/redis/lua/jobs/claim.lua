-- jobs/claim: RedisJobQueue.claim.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] worker, [2] max, [3] lock TTL µs, [4] clock margin µs,
-- [5] most jobs moved into ready per index.
-- Takes permits from the rate bucket (if the queue has a rate), moves the due delayed jobs and the locks expired by
-- the margin into ready, then locks ready's first jobs: a PROCESSING one on its last attempt becomes IGNORED instead
-- (and takes no permit). Returns key, data, token, attempt, max attempts, locked until (ms), due before the claim
-- (ms) for each locked job, flat, all as text, then one more element: '1' if the rate limit cut the claim short
-- (the bucket had fewer permits than asked and a runnable job is left: ready, a due delayed job or an expired lock),
-- else '0' (ClaimedJobs.rateLimited).

local now = now_us()
local worker, max, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local margin, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
local allowed = max
local rate, permits = bucket(now)
if rate > 0 then allowed = math.min(max, math.floor(permits)) end
local out = {}
local claimed = 0
local need = allowed
if allowed > 0 then
  local due = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', fmt(now), 'LIMIT', 0, limit)
  for _, key in ipairs(due) do
    local r = load(key)
    if r and (r.s == 0 or r.s == 20) then redis.call('ZADD', K_READY, -r.p, member(key, r)) end
  end
  zrem_all(K_DELAYED, due)
  local expired = redis.call('ZRANGEBYSCORE', K_LOCKS, '-inf', fmt(now - margin), 'LIMIT', 0, limit)
  for _, key in ipairs(expired) do
    local r = load(key)
    if r and r.s == 30 then redis.call('ZADD', K_READY, -r.p, member(key, r)) end
  end
  zrem_all(K_LOCKS, expired)
  while need > 0 do
    local ms = redis.call('ZRANGE', K_READY, 0, need - 1)
    if #ms == 0 then break end
    zrem_all(K_READY, ms)
    local keys = {}
    for i = 1, #ms do keys[i] = string.sub(ms[i], 18) end
    local stored = chunked('HMGET', K_JOBS, keys)
    local recs, locks, todo, failures, taken = {}, {}, {}, {}, {}
    for i = 1, #ms do
      local key = keys[i]
      local r = parse(stored[i])
      if r and r.s < 50 and member(key, r) == ms[i] then
        if r.s == 30 and r.a >= r.m then
          leave(key, r, true)
          set_error(key, 'lock of ' .. r.w .. ' expired on the last attempt (' .. r.a .. ' of ' .. r.m .. ')')
          r.s = 70
          r.upd = now
          enter(key, r, now)
        else
          -- out of ready (above), todo or failures; an expired lock already left locks when it was moved
          if r.s == 0 then todo[#todo + 1] = key elseif r.s == 20 then failures[#failures + 1] = key end
          count(r.s, -1)
          count(30, 1)
          local was_due = r.due
          r.s = 30
          r.a = r.a + 1
          r.tok = next_token(r.tok, now)
          r.w = worker
          r.due = now + ttl
          r.upd = now
          recs[#recs + 1] = key
          recs[#recs + 1] = record(r)
          locks[#locks + 1] = fmt(r.due)
          locks[#locks + 1] = key
          taken[#taken + 1] = key
          out[#out + 1] = key
          out[#out + 1] = ''
          out[#out + 1] = fmt(r.tok)
          out[#out + 1] = tostring(r.a)
          out[#out + 1] = tostring(r.m)
          out[#out + 1] = fmt(math.floor(r.due / 1000))
          out[#out + 1] = fmt(math.floor(was_due / 1000))
          need = need - 1
        end
      end
    end
    zrem_all(K_TODO, todo)
    zrem_all(K_FAILURES, failures)
    chunked('HSET', K_JOBS, recs)
    chunked('ZADD', K_LOCKS, locks)
    local data = chunked('HMGET', K_DATA, taken)
    local first = #out - 7 * #taken
    for i = 1, #taken do out[first + 7 * i - 5] = data[i] or '' end
    claimed = claimed + #taken
  end
end
local limited = '0'
if rate > 0 and allowed < max and need <= 0 then
  if redis.call('ZCARD', K_READY) > 0
      or #redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', fmt(now), 'LIMIT', 0, 1) > 0
      or #redis.call('ZRANGEBYSCORE', K_LOCKS, '-inf', fmt(now - margin), 'LIMIT', 0, 1) > 0 then
    limited = '1'
  end
end
if rate > 0 then
  redis.call('HSET', K_RATE, 'permits', string.format('%.17g', permits - claimed), 'refilled', fmt(now))
end
flush_counts()
out[#out + 1] = limited
return out

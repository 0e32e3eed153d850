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
-- formatted once per claim: every job it locks gets the same due, updated time and (unless its previous token is at
-- or above now) the same token
-- the status codes a claim may find in ready, by their text
local CLAIMABLE = {['0'] = 0, ['20'] = 20, ['30'] = 30}
local now_text, lock_due = fmt(now), fmt(now + ttl)
local locked_until = fmt(math.floor((now + ttl) / 1000))
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
      local s, a, m, p, was_due, _, tok, w = fields(stored[i])
      -- TODO, FAILED or PROCESSING (the codes below 50), still the job of this member
      local code = CLAIMABLE[s]
      if code and pad17(was_due) .. key == ms[i] then
        if code == 30 and tonumber(a) >= tonumber(m) then
          local r = parse(stored[i])
          leave(key, r, true)
          set_error(key, 'lock of ' .. w .. ' expired on the last attempt (' .. a .. ' of ' .. m .. ')')
          r.s = 70
          r.upd = now
          enter(key, r, now)
        else
          -- out of ready (above), todo or failures; an expired lock already left locks when it was moved. The new
          -- record is copied from the stored text: only the attempt and, for a token at or above now, the token
          -- are formatted (the lock's due, now and the token now are formatted once per claim, above)
          if code == 0 then todo[#todo + 1] = key elseif code == 20 then failures[#failures + 1] = key end
          count(code, -1)
          count(30, 1)
          -- the token rule: previous + 1 if that is above now (previous >= now), else now
          local token = text_le(now_text, tok) and fmt(tonumber(tok) + 1) or now_text
          local attempt = next_count(a)
          recs[#recs + 1] = key
          recs[#recs + 1] = '30|' .. attempt .. '|' .. m .. '|' .. p .. '|' .. lock_due .. '|' .. now_text .. '|'
              .. token .. '|' .. worker
          locks[#locks + 1] = lock_due
          locks[#locks + 1] = key
          taken[#taken + 1] = key
          out[#out + 1] = key
          out[#out + 1] = ''
          out[#out + 1] = token
          out[#out + 1] = attempt
          out[#out + 1] = m
          out[#out + 1] = locked_until
          out[#out + 1] = ms_text(was_due)
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

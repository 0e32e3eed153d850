-- jobs/finish_all: RedisJobQueue.finishAll.
-- KEYS: the queue's twelve (jobs/prelude.lua); ARGV[1] clock margin µs, then key, token, key, token, ... (distinct
-- keys).
-- Finishes each job whose token holds its lock, as jobs/finish does one. Returns 1 or 0 per job, in order.
-- One HMGET reads every record and a few multi-element commands write them; each finished record is the stored text
-- with the status and the updated time replaced (no number formatted per job).

local margin = tonumber(ARGV[1])
local now = now_us()
local now_text = fmt(now)
-- a lock due at or before this expired by the margin
local expired_at = fmt(now - margin)
local keys = {}
for i = 2, #ARGV, 2 do keys[#keys + 1] = ARGV[i] end
local stored = chunked('HMGET', K_JOBS, keys)
local out, recs, unlocked, done = {}, {}, {}, {}
local n = 0
for i = 1, #keys do
  local key = keys[i]
  local s, a, m, p, due, _, tok, w = fields(stored[i])
  -- held: PROCESSING under this token (both canonical decimal text)
  if s == '30' and tok == ARGV[2 * i + 1] then
    -- a lock expired by the margin may have been moved into ready by a claim (see jobs/finish)
    if text_le(due, expired_at) then redis.call('ZREM', K_READY, pad17(due) .. key) end
    unlocked[#unlocked + 1] = key
    done[#done + 1] = now_text
    done[#done + 1] = key
    recs[#recs + 1] = key
    recs[#recs + 1] = '50|' .. a .. '|' .. m .. '|' .. p .. '|' .. due .. '|' .. now_text .. '|' .. tok .. '|' .. w
    n = n + 1
    out[i] = 1
  else
    out[i] = 0
  end
end
zrem_all(K_LOCKS, unlocked)
chunked('ZADD', K_DONE, done)
chunked('HSET', K_JOBS, recs)
count(30, -n)
count(50, n)
flush_counts()
return out

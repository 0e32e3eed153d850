-- membership/holds: RedisOwnership.holds.
-- KEYS[1] holds.
-- Returns field, value, field, value... of the holds whose time has not run out (store time) and deletes the
-- others (and unreadable ones).

local now = now_ms()
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local u = tonumber(string.match(all[i + 1], '|(%d+)$') or '')
  if u and u > now then
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return out

-- membership/claim_all: RedisOwnership.claim and claimAll.
-- KEYS[1] members, [2] ownership, [3] counter, [4] guard; ARGV[1] member, [2] session, [3] clock margin ms, [4] guard
-- ms, [5..] units.
-- Claims each unit, all refused unless the claimant's session is current and live (then the guard is read or
-- stamped); per unit: the same session already owns it -> its token; the pool waits out its guard -> refused;
-- owned by another current session whose lease ends less than the margin before now -> refused; else a new token
-- from the counter, recorded as "member|session|token". Returns {why the guard was stamped with a wait or '',
-- not_before}, then one string per unit: its token, or '' if refused.

local now = now_ms()
local margin = tonumber(ARGV[3])
local me = live(member(KEYS[1], ARGV[1]), ARGV[2], now)
local nb, why = 0, nil
if me then nb, why = guard(KEYS[4], KEYS[3], now, tonumber(ARGV[4])) end
local out = {why or '', fmt(nb)}
for i = 5, #ARGV do
  local r = ''
  if me then
    local o = owner(KEYS[2], ARGV[i])
    if o ~= nil and o.m == ARGV[1] and o.s == ARGV[2] then
      r = o.t
    elseif now >= nb and (o == nil or not held(member(KEYS[1], o.m), o.s, now, margin)) then
      r = next_counter(KEYS[3])
      redis.call('HSET', KEYS[2], ARGV[i], ARGV[1] .. '|' .. ARGV[2] .. '|' .. r)
    end
  end
  out[#out + 1] = r
end
return out

-- membership/hand_off: RedisOwnership.handOffAll (a planned handoff: release and grant in one script).
-- KEYS[1] members, [2] ownership, [3] counter, [4] guard; ARGV[1] member, [2] the owners channel, [3] guard ms,
-- then unit, token, to triples (to '' for a plain release).
-- Per triple: compare-and-delete on (member, token) as release_all; if released and `to` names another member whose
-- session is current and whose lease is live, and the pool is not waiting out its lost-state guard (read or stamped
-- as claim_all does, once, at the first grant), the unit is granted to that session with a new token from the
-- counter (claim_all's rule), recorded as "to|session|token" and announced as "\1token|session|to|unit"
-- (Handoff.grantMessage); otherwise the release is announced as today (the unit). Returns {why the guard was stamped
-- with a wait or '', not_before}, then the units released, in order.

local now = now_ms()
local nb, why = nil, nil
local out = {'', ''}
for i = 4, #ARGV - 2, 3 do
  local unit, to = ARGV[i], ARGV[i + 2]
  local o = owner(KEYS[2], unit)
  if o ~= nil and o.m == ARGV[1] and o.t == ARGV[i + 1] then
    redis.call('HDEL', KEYS[2], unit)
    out[#out + 1] = unit
    local m = nil
    if to ~= '' and to ~= ARGV[1] then m = member(KEYS[1], to) end
    if m ~= nil and live(m, m.s, now) and nb == nil then
      nb, why = guard(KEYS[4], KEYS[3], now, tonumber(ARGV[3]))
      out[1], out[2] = why or '', fmt(nb)
    end
    if m ~= nil and live(m, m.s, now) and now >= nb then
      local t = next_counter(KEYS[3])
      redis.call('HSET', KEYS[2], unit, to .. '|' .. m.s .. '|' .. t)
      redis.call('PUBLISH', ARGV[2], '\1' .. t .. '|' .. m.s .. '|' .. to .. '|' .. unit)
    else
      redis.call('PUBLISH', ARGV[2], unit)
    end
  end
end
return out

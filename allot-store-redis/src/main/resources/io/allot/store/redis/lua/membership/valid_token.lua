-- membership/valid_token: RedisOwnership.validToken.
-- KEYS[1] members, [2] ownership; ARGV[1] unit, [2] member, [3] session, [4] token.
-- Returns 1 if the unit is owned by (member, session) with that token and that session is current and live, else 0.

local o = owner(KEYS[2], ARGV[1])
if o == nil or o.t ~= ARGV[4] or o.m ~= ARGV[2] or o.s ~= ARGV[3] then return 0 end
if live(member(KEYS[1], o.m), o.s, now_ms()) then return 1 end
return 0

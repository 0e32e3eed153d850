-- membership/deregister: RedisMembership.deregister and removeIfExpired.
-- KEYS[1] the services list P, [2] members; ARGV[1] id, [2] session, [3] the members channel, [4] clock margin ms,
-- or '' for none.
-- If the id's recorded session is this one (and, with a margin, its lease ended at least the margin ago): HDEL the
-- record, LREM the id from P, PUBLISH id. Units it owned stay in the ownership hash but are claimable (their owner's
-- session is gone). Returns 1 if removed, else 0.

local bad = wrong_type(KEYS[1], 'list')
if bad then return bad end
local m = member(KEYS[2], ARGV[1])
if m == nil or m.s ~= ARGV[2] then return 0 end
if ARGV[4] ~= '' and tonumber(m.u) + tonumber(ARGV[4]) > now_ms() then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('LREM', KEYS[1], 0, ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[1])
return 1

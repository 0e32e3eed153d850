-- tasks/started: RedisTaskSpecs.started.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] name, [3] member, [4] token, [5] revision.
-- Records the run (stamped now) if the spec exists and the recorded run's token is not above ARGV[4]; the fault
-- stays only under the same token. Returns 1 if recorded, else 0. A report, not a change of the spec: no version
-- bump, no announcement (see TaskSpecs).

if not load() then return 0 end
local tok = run_token(redis.call('HGET', K_RUNS, NAME))
local c = tok and cmp(tok, ARGV[4]) or -1
if c > 0 then return 0 end
redis.call('HSET', K_RUNS, NAME, ARGV[4] .. '|' .. ARGV[5] .. '|' .. fmt(now_ms()) .. '|' .. ARGV[3])
if c ~= 0 then redis.call('HDEL', K_FAULTS, NAME) end
return 1

-- tasks/fault: RedisTaskSpecs.fault.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] name, [3] token, [4] the fault record (empty:
-- clear it).
-- Writes it if the recorded run holds that token. Returns 1 if recorded, else 0. A report: not announced.

if not load() or run_token(redis.call('HGET', K_RUNS, NAME)) ~= ARGV[3] then return 0 end
if ARGV[4] == '' then
  redis.call('HDEL', K_FAULTS, NAME)
else
  redis.call('HSET', K_FAULTS, NAME, ARGV[4])
end
return 1

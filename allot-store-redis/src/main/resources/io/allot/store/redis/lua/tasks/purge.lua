-- tasks/purge: RedisTaskSpecs.purge.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] name, [3] revision.
-- Removes the tombstone of that revision (with its args, run and fault). Returns 1 if removed, else 0.

local s = load()
if not s or s.del == '0' or s.rev ~= ARGV[3] then return 0 end
redis.call('HDEL', K_SPECS, NAME)
redis.call('HDEL', K_ARGS, NAME)
redis.call('HDEL', K_RUNS, NAME)
redis.call('HDEL', K_FAULTS, NAME)
changed()
return 1

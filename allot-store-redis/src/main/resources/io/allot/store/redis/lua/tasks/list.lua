-- tasks/list: RedisTaskSpecs.list.
-- KEYS: the pool's five (tasks/prelude.lua); ARGV[1] channel, [2] unused.
-- Every spec: {HGETALL specs, HGETALL args, HGETALL runs, HGETALL faults}.

return {redis.call('HGETALL', K_SPECS), redis.call('HGETALL', K_ARGS), redis.call('HGETALL', K_RUNS),
        redis.call('HGETALL', K_FAULTS)}

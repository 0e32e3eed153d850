-- leases/acquire: RedisLeadership.tryAcquire.
-- KEYS[1] the lease, [2] its token counter; ARGV[1] the holder, [2] the TTL in ms.
-- If the lease is free: the counter's next token, SET lease "token:holder" PX ttl, returns the token (text);
-- else nil.

if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = next_counter(KEYS[2])
redis.call('SET', KEYS[1], token .. ':' .. ARGV[1], 'PX', ARGV[2])
return token

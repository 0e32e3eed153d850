-- leases/renew: RedisLeadership.renew.
-- KEYS[1] the lease; ARGV[1] its expected value "token:holder", [2] the TTL in ms.
-- PEXPIRE the lease if it holds the expected value. Returns 1 if renewed, else 0.

if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0

-- leases/release: RedisLeadership.release.
-- KEYS[1] the lease; ARGV[1] its expected value "token:holder".
-- Compare-and-delete. Returns 1 if deleted, else 0.

if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0

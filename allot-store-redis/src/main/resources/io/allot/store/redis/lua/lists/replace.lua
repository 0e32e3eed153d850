-- lists/replace: RedisSeedKeys.replaceList.
-- KEYS[1] the list; ARGV[1] the channel of the key's changes, [2..] the values, head first.
-- DEL, RPUSH the values (in chunks), PUBLISH 'replace'. Returns 1.

redis.call('DEL', KEYS[1])
chunked('RPUSH', KEYS[1], ARGV, 2)
redis.call('PUBLISH', ARGV[1], 'replace')
return 1

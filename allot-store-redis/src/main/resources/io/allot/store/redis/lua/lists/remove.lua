-- lists/remove: RedisSeedKeys.removeFromList.
-- KEYS[1] the list; ARGV[1] the value, [2] the channel of the key's changes.
-- LREM every occurrence; PUBLISH 'lrem' if there was any. Returns how many were removed.

local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
if n > 0 then redis.call('PUBLISH', ARGV[2], 'lrem') end
return n

-- lists/add_if_absent: RedisSeedKeys.addToList.
-- KEYS[1] the list; ARGV[1] the value, [2] the channel of the key's changes.
-- LPUSH the value only if absent (portable: no LPOS), then PUBLISH 'lpush'. Returns 1 if added, else 0.

local items = redis.call('LRANGE', KEYS[1], 0, -1)
for i = 1, #items do
  if items[i] == ARGV[1] then return 0 end
end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], 'lpush')
return 1

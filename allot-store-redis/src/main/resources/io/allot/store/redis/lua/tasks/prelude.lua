-- tasks/prelude.lua: the prelude of the task spec scripts (after prelude.lua): the keys, the record, the reply, the
-- announcement. Every task spec script gets the same five KEYS, all in the pool's slot (SpecKeys), each a hash keyed
-- by task name except the last:
--
--   1 specs    name -> "revision|cost|createdMillis|updatedMillis|deletedMillis" (deletedMillis 0 while live)
--   2 args     name -> the arguments, verbatim
--   3 runs     name -> the last confirmed start "token|revision|startedMillis|member" (the member last, so it may
--              hold '|'); absent before the first
--   4 faults   name -> "failures|failing (0/1)|lastErrorMillis|lastError" (the error last, so it may hold anything);
--              absent when none
--   5 version  the pool's change counter (INCR)
--
-- Text (arguments, member, error) is stored as the value of a hash field or as the tail of a record, never between
-- separators, so it needs no escaping and comes back byte for byte. ARGV[1] is the channel of Topic.taskSpecs, ARGV[2]
-- the task name; every change of a spec (create, update, delete, purge; not the run and fault reports) INCRs version
-- and PUBLISHes the name on the channel, in the script. Times are the store clock in milliseconds (now_ms, written
-- with fmt). Numbers that come from Java (cost, tokens, revisions) are kept as the decimal text Java wrote and
-- compared as text (tokens by cmp, which orders canonical decimal integers exactly, whatever their size), so no long
-- passes through a Lua number; only revisions (small) are incremented as numbers.
--
-- Every write script answers {outcome, record, args, run, fault} (false, a nil bulk, for what is absent) or a flag;
-- the outcomes are CREATED, EXISTS, CONFLICT, UPDATED, SAME, DELETED, NONE.

local K_SPECS, K_ARGS, K_RUNS, K_FAULTS, K_VERSION = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local CHANNEL, NAME = ARGV[1], ARGV[2]

-- the spec NAME, parsed; nil if absent (an unreadable record is an error)
local function load()
  local v = redis.call('HGET', K_SPECS, NAME)
  if not v then return nil end
  local rev, cost, cr, up, del = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)|(%d+)$')
  if not rev then error('task spec ' .. NAME .. ' has an unreadable record: ' .. v) end
  return {rev = rev, cost = cost, cr = cr, up = up, del = del}
end
local function record(s) return s.rev .. '|' .. s.cost .. '|' .. s.cr .. '|' .. s.up .. '|' .. s.del end
local function save(s) redis.call('HSET', K_SPECS, NAME, record(s)) end
local function reply(outcome, s)
  return {outcome, record(s), redis.call('HGET', K_ARGS, NAME), redis.call('HGET', K_RUNS, NAME),
          redis.call('HGET', K_FAULTS, NAME)}
end
-- a change of the spec: the version goes up and the name is announced
local function changed()
  redis.call('INCR', K_VERSION)
  redis.call('PUBLISH', CHANNEL, NAME)
end
-- canonical decimal integers (as Java's Long.toString writes them) compared exactly: -1, 0 or 1
local function cmp(a, b)
  if a == b then return 0 end
  local na, nb = string.sub(a, 1, 1) == '-', string.sub(b, 1, 1) == '-'
  if na ~= nb then return na and -1 or 1 end
  local r
  if #a ~= #b then r = (#a < #b) and -1 or 1 else r = (a < b) and -1 or 1 end
  return na and -r or r
end
-- the token of a run record (text), or nil
local function run_token(run) return run and string.match(run, '^(%-?%d+)|') end

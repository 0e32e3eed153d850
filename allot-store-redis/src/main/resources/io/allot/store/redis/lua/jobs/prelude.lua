-- jobs/prelude.lua: the prelude of a job queue's scripts (after prelude.lua): the keys, the state record, the
-- indexes and the counts. Every job script gets the same twelve KEYS, all in the queue's slot (JobKeys):
--
--   1 jobs      hash key -> the job's state "status|attempts|max|priority|due|updated|token|worker" (times and
--               tokens in microseconds of the store clock; the worker last, so it may contain '|')
--   2 data      hash key -> payload (absent when empty)
--   3 errors    hash key -> last error (absent when none)
--   4 ready     sorted set of the jobs known to be runnable, score -priority, member due (17 digits) .. key: rank
--               order is priority desc, due asc, key asc
--   5 delayed   sorted set of TODO/FAILED jobs not yet due when placed, score due
--   6 locks     sorted set of PROCESSING jobs, score the lock's expiry
--   7 todo      sorted set of the TODO jobs, score due (for oldestTodoMillis)
--   8 failures  sorted set of the FAILED and IGNORED jobs, score updated
--   9 done      sorted set of the FINISHED and IGNORED jobs, score updated (for purge)
--  10 counts    hash status code -> number of jobs
--  11 rate      hash rate (jobs/s, as Java wrote it), permits, refilled (µs)
--  12 tasks     where releases before the word "job" kept the jobs hash: renamed to jobs, below, when it alone
--               exists (so a queue written by such a release keeps its jobs)
--
-- Status codes: 0 TODO, 20 FAILED, 30 PROCESSING, 50 FINISHED, 70 IGNORED. A TODO/FAILED job is in exactly one of
-- ready and delayed; a PROCESSING one in locks until a claim moves it, its lock expired by the clock margin, into
-- ready. Claims move what became runnable from delayed and locks into ready (at most a bounded number per call,
-- earliest first) and take ready's first members: so jobs not yet due never stand in the way of due ones of lower
-- priority, and a claim costs O(log n) per job whatever the backlog. Every transition goes through leave (out of
-- the indexes of the old status) and enter (into those of the new one), so the indexes and counts follow the state;
-- a claim also skips any member that no longer matches its job, and moves only entries whose job is still in the
-- index's status. Enqueue and the claim of a batch send their writes as a few multi-element commands (chunked), not
-- one command per job. Numbers are Lua numbers written with fmt; tokens follow the token rule with the floor
-- now_us() and are compared as text. The hot paths (enqueue, claim, finish_all) copy a record's fields as the
-- text stored (fields) and format only what changes, once per call where it is the same for every job (now, the
-- lock's due): formatting a number costs a Lua script about a microsecond, and a claim used to format a dozen per
-- job (RedisJobQueueTest.behavesAsTheMemoryReferenceUnderRandomOperations compares every answer and the indexes'
-- sizes with the memory queue's).

local K_JOBS, K_DATA, K_ERRORS, K_READY, K_DELAYED, K_LOCKS = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local K_TODO, K_FAILURES, K_DONE, K_COUNTS, K_RATE = KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
if redis.call('EXISTS', K_JOBS) == 0 and redis.call('EXISTS', KEYS[12]) == 1 then
  redis.call('RENAME', KEYS[12], K_JOBS)
end

-- a state record, parsed; nil if absent or unreadable
local function parse(v)
  if not v then return nil end
  local s, a, m, p, due, upd, tok, w =
      string.match(v, '^(%d+)|(%d+)|(%d+)|(%-?%d+)|(%d+)|(%d+)|(%d+)|(.*)$')
  if not s then return nil end
  return {s = tonumber(s), a = tonumber(a), m = tonumber(m), p = tonumber(p), due = tonumber(due),
          upd = tonumber(upd), tok = tonumber(tok), w = w}
end
local function load(key) return parse(redis.call('HGET', K_JOBS, key)) end
-- a state record's eight fields as the text stored (status, attempts, max, priority, due, updated, token, worker),
-- or nil if absent or unreadable: the hot paths (claim, finish_all, enqueue) copy fields as text instead of
-- formatting numbers again, which costs a Lua script about a microsecond per number. Stored numbers are canonical
-- decimal text (written by fmt or %d), so text equals what fmt of the parsed number gives.
local function fields(v)
  if not v then return nil end
  return string.match(v, '^(%d+)|(%d+)|(%d+)|(%-?%d+)|(%d+)|(%d+)|(%d+)|(.*)$')
end
-- the 17-digit text of a due time given as canonical decimal text (as member's string.format('%017.0f'))
local function pad17(d) return string.rep('0', 17 - #d) .. d end
-- a <= b for non-negative integers given as canonical decimal text (no leading zeros): no conversion to numbers
local function text_le(a, b)
  if #a ~= #b then return #a < #b end
  return a <= b
end
-- the text of n + 1 for a count n given as canonical text (attempts): formatted once per distinct n and script call
local next_counts = {}
local function next_count(n)
  local t = next_counts[n]
  if not t then
    t = fmt(tonumber(n) + 1)
    next_counts[n] = t
  end
  return t
end
-- the score text of -priority, priority given as canonical decimal text (a ready member's score)
local function negated(priority)
  if priority == '0' then return '0' end
  if string.byte(priority, 1) == 45 then return string.sub(priority, 2) end -- '-'
  return '-' .. priority
end
-- a time in µs given as canonical decimal text, floored to ms, as text
local function ms_text(us)
  if #us <= 3 then return '0' end
  return string.sub(us, 1, -4)
end
local function record(r)
  return string.format('%d|%d|%d|%d|%.0f|%.0f|%.0f|', r.s, r.a, r.m, r.p, r.due, r.upd, r.tok) .. r.w
end
local function save(key, r) redis.call('HSET', K_JOBS, key, record(r)) end
-- the job's member of ready
local function member(key, r) return string.format('%017.0f', r.due) .. key end

local counts = {}
local function count(code, d) counts[code] = (counts[code] or 0) + d end
local function flush_counts()
  for c, d in pairs(counts) do
    if d ~= 0 then redis.call('HINCRBY', K_COUNTS, c, d) end
  end
end

-- r is PROCESSING under token (text)
local function held(r, token) return r ~= nil and r.s == 30 and fmt(r.tok) == token end

-- out of the indexes of r's status (r as stored); ready_known: r is known not to be in ready (or delayed)
local function leave(key, r, ready_known)
  local s = r.s
  if s == 0 or s == 20 then
    if not ready_known then
      redis.call('ZREM', K_READY, member(key, r))
      redis.call('ZREM', K_DELAYED, key)
    end
    if s == 0 then redis.call('ZREM', K_TODO, key) else redis.call('ZREM', K_FAILURES, key) end
  elseif s == 30 then
    if not ready_known then redis.call('ZREM', K_READY, member(key, r)) end
    redis.call('ZREM', K_LOCKS, key)
  else
    redis.call('ZREM', K_DONE, key)
    if s == 70 then redis.call('ZREM', K_FAILURES, key) end
  end
  count(s, -1)
end

-- into the indexes of r's (new) status, and saved
local function enter(key, r, now)
  local s = r.s
  if s == 0 or s == 20 then
    if r.due <= now then
      redis.call('ZADD', K_READY, -r.p, member(key, r))
    else
      redis.call('ZADD', K_DELAYED, r.due, key)
    end
    if s == 0 then redis.call('ZADD', K_TODO, r.due, key) else redis.call('ZADD', K_FAILURES, r.upd, key) end
  elseif s == 30 then
    redis.call('ZADD', K_LOCKS, r.due, key)
  else
    redis.call('ZADD', K_DONE, r.upd, key)
    if s == 70 then redis.call('ZADD', K_FAILURES, r.upd, key) end
  end
  count(s, 1)
  save(key, r)
end

local function set_error(key, e)
  if e == '' then redis.call('HDEL', K_ERRORS, key) else redis.call('HSET', K_ERRORS, key, e) end
end

local function zrem_all(zkey, members) chunked('ZREM', zkey, members) end

-- the rate bucket at now: its rate (0: none) and the permits it holds now (refilled at the rate, at most one
-- second of it and at least 1)
local function bucket(now)
  local b = redis.call('HMGET', K_RATE, 'rate', 'permits', 'refilled')
  local rate = tonumber(b[1] or '') or 0
  local permits = 0
  if rate > 0 then
    local refilled = tonumber(b[3] or '') or now
    permits = math.min(math.max(1, rate), (tonumber(b[2] or '') or 0) + math.max(0, now - refilled) / 1000000 * rate)
  end
  return rate, permits
end
-- each present job of ARGV (distinct keys) changed by change(r, now) into a new status, through leave and enter,
-- unless keep (optional; keep(r, i), i the key's index in ARGV) says to leave it as it is; the keys are ARGV[first],
-- ARGV[first + step], ... (default: every argument); returns how many were changed
local function change_each(change, keep, first, step)
  local now = now_us()
  local n = 0
  for i = first or 1, #ARGV, step or 1 do
    local key = ARGV[i]
    local r = load(key)
    if r and not (keep and keep(r, i)) then
      leave(key, r, false)
      change(r, now)
      enter(key, r, now)
      n = n + 1
    end
  end
  flush_counts()
  return n
end

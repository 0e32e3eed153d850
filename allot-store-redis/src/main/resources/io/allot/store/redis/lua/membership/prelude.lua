-- membership/prelude.lua: the prelude of a pool's membership and ownership scripts (after prelude.lua): the member
-- and owner records, the clock margin and the lost-state guard. Sessions, tokens and ids are compared as text; only
-- times are Lua numbers (milliseconds of the store clock, written with fmt).
--
-- A member record (the members hash: id -> record) is "affinity|capacity|session|leaseUntilMillis" followed by an
-- optional "|attributes" part that the scripts carry along as opaque text (x: '' or starting with '|'). An owner
-- record (the ownership hash: unit -> record) is "member|session|token", the member parsed from the right (it may
-- contain '|'). A hold (the holds hash: unit -> record) is "member|untilMillis".

-- the record of member id in the hash members, parsed; nil if absent or unreadable
local function member(members, id)
  local v = redis.call('HGET', members, id)
  if not v then return nil end
  local a, c, s, u, x = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)(.*)$')
  if not a or (x ~= '' and string.sub(x, 1, 1) ~= '|') then return nil end
  return {a = a, c = c, s = s, u = u, x = x}
end

local function record(a, c, s, u, x)
  return a .. '|' .. c .. '|' .. s .. '|' .. u .. x
end

-- m is session's record and its lease has not ended at now (ms)
local function live(m, session, now)
  return m ~= nil and m.s == session and tonumber(m.u) > now
end

-- m is session's record and its lease ended less than the clock margin before now (ms): its units stay its own
local function held(m, session, now, margin)
  return m ~= nil and m.s == session and tonumber(m.u) + margin > now
end

-- the owner record of unit in the hash ownership, parsed; nil if absent or unreadable
local function owner(ownership, unit)
  local v = redis.call('HGET', ownership, unit)
  if not v then return nil end
  local m, s, t = string.match(v, '^(.*)|(%d+)|(%d+)$')
  if not m then return nil end
  return {m = m, s = s, t = t}
end

-- now + ttl (ms, ttl as text), as text
local function until_ms(now, ttl)
  return fmt(now + tonumber(ttl))
end

-- INFO section as text ('' when refused)
local function info(section)
  local text = redis.pcall('INFO', section)
  if type(text) == 'string' then return text end
  return ''
end

-- guard(gkey, ckey, now, guard_ms): the pool's lost-state guard (its record: RedisKeys.guard; the pool counter:
-- RedisKeys.counter). The node's life is its run_id (INFO server, read here, per node in a Cluster). If the record
-- names this life and the counter exists, its not_before holds. Else, a new pool (neither record nor counter) on a
-- node up for at least the guard and never promoted (master_replid2 all zeros) needs no wait; anything else (another
-- run id: restart, failover, rollback; counter or record missing: eviction, partial loss; a young or promoted node)
-- waits now + guard_ms, since leases granted before may still be trusted by their holders. The record is written,
-- and a missing counter is seeded with the time in microseconds, so the next call finds both. Returns not_before
-- and, when this call stamped a wait, why (else nil).
local function guard(gkey, ckey, now, guard_ms)
  local server = info('server')
  local run_id = string.match(server, 'run_id:(%x+)') or 'unknown'
  local rec = redis.call('HMGET', gkey, 'incarnation', 'not_before')
  local counted = redis.call('EXISTS', ckey) == 1
  if rec[1] == run_id and counted and tonumber(rec[2]) then return tonumber(rec[2]), nil end
  local why = nil
  if rec[1] and rec[1] ~= run_id then
    why = 'the run id changed (restart, failover or rollback)'
  elseif rec[1] and not counted then
    why = 'the pool counter is missing (evicted or deleted)'
  elseif rec[1] then
    why = 'the guard record is unreadable'
  elseif counted then
    why = 'the guard record is missing (lost, or written by a release without it)'
  else
    local uptime = tonumber(string.match(server, 'uptime_in_seconds:(%d+)') or '0')
    local replid2 = string.match(info('replication'), 'master_replid2:(%x+)') or ''
    if uptime * 1000 < guard_ms then
      why = 'the node is up for less than the guard (' .. uptime .. ' s)'
    elseif not string.find(replid2, '^0+$') then
      why = 'the node was promoted from a replica (or its history is unknown)'
    end
  end
  local nb = now
  if why then nb = now + guard_ms end
  redis.call('HSET', gkey, 'incarnation', run_id, 'not_before', fmt(nb))
  if not counted then redis.call('SET', ckey, fmt(now_us())) end
  return nb, why
end

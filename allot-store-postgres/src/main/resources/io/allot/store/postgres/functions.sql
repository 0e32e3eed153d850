-- allot PostgreSQL store: every function, in one place.
--
-- SchemaMigrator applies this file after the numbered migrations (which hold only tables, columns and indexes), in
-- the same transaction under the migration lock, and again whenever its SHA-256 differs from the one recorded in
-- allot_schema_version.functions_sha256. So every statement here must be safe to run again: CREATE OR REPLACE, and
-- DROP FUNCTION IF EXISTS for signatures that changed (CREATE OR REPLACE cannot change a function's argument types,
-- which would add an overload, nor its result type). ${schema} is replaced by the quoted schema name.
--
-- Every time is the server's clock_timestamp() (store time, not now(): that is the transaction start, stale after a
-- lock wait). Every multi-step operation is one function call = one statement = one transaction and one round
-- trip, so no lock is ever held while waiting for a client. NOTIFY is transactional: sent at commit, in commit order.
--
-- Row lock order (no cycles, so no deadlocks): leases -> keys -> epochs -> publish_marks (publish, publish
-- changes); pools -> members -> keys
-- (register); members -> keys (deregister, remove if expired); pools -> ownership -> members (claim, the owner's row
-- FOR SHARE; a claim refused because another live session holds the unit takes no lock); members alone (renew,
-- update member); ownership -> holds (release unit); several ownership rows in unit order, COLLATE "C" (claim_all,
-- release_units); pools -> ownership rows in unit order (hand_off_units); holds alone (read holds); keys alone (list operations); task_specs -> task_spec_versions (every task
-- spec write); route_weight_revisions -> route_weights (set route weights).

-- ---------------------------------------------------------------- signatures of earlier releases

-- Up to schema version 3 the list functions did not notify, and register and update_member took no attributes.
-- Their new parameters come last with defaults, so a call of the old form (from a process of the previous release
-- still running during an upgrade) resolves to the new function.
DROP FUNCTION IF EXISTS ${schema}.add_to_list(text, text);
DROP FUNCTION IF EXISTS ${schema}.remove_from_list(text, text);
DROP FUNCTION IF EXISTS ${schema}.replace_list(text, text[]);
DROP FUNCTION IF EXISTS ${schema}.register(text, text, integer, integer, bigint, text, text);
DROP FUNCTION IF EXISTS ${schema}.update_member(text, text, bigint, integer, integer, text, text);
-- Up to schema version 4 register, deregister, claim, claim_all and release_unit took no guard, clock margin or
-- hold (new last parameters with defaults, as above).
DROP FUNCTION IF EXISTS ${schema}.register(text, text, integer, integer, bigint, text, text, text);
DROP FUNCTION IF EXISTS ${schema}.deregister(text, text, bigint, text, text);
DROP FUNCTION IF EXISTS ${schema}.claim(text, text, text, bigint);
DROP FUNCTION IF EXISTS ${schema}.claim_all(text, text[], text, bigint);
DROP FUNCTION IF EXISTS ${schema}.release_unit(text, text, text, bigint, text, text);
-- Up to schema version 8 the claims of a batch went through claim_locked, one unit at a time; claim_all now does it.
DROP FUNCTION IF EXISTS ${schema}.claim_locked(text, text, text, bigint, timestamptz, bigint);

-- ---------------------------------------------------------------- helpers

-- The store clock in microseconds since the epoch: seeds token counters so they keep increasing after data loss.
CREATE OR REPLACE FUNCTION ${schema}.clock_micros() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint
$$;

-- ---------------------------------------------------------------- lost-state guard

-- Whether this session's settings allow the server to lose commits it acknowledged: fsync=off (an OS crash) or
-- synchronous_commit=off (a server crash loses the last few hundred ms of commits).
CREATE OR REPLACE FUNCTION ${schema}.loss_possible() RETURNS boolean LANGUAGE sql VOLATILE AS $$
  SELECT current_setting('fsync') = 'off' OR current_setting('synchronous_commit') = 'off'
$$;

-- The timeline WAL is written on now: the first 8 hex digits of the current WAL file's name. Not
-- pg_control_checkpoint().timeline_id, the timeline of the latest checkpoint: after a promotion it shows the old
-- one until the next checkpoint completes (a spread checkpoint: minutes), and a failover would go unnoticed that
-- long.
CREATE OR REPLACE FUNCTION ${schema}.timeline() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT ('x' || substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8))::bit(32)::bigint
$$;

-- What identifies the server's current life: system_identifier:timeline, which changes with another cluster (a
-- restore into a new initdb) and with every promotion (failover, point-in-time recovery); plus the postmaster's
-- start time (µs) when the settings allow losing commits, since then every restart may have lost some.
CREATE OR REPLACE FUNCTION ${schema}.incarnation() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT s.system_identifier::text || ':' || ${schema}.timeline()
      || CASE WHEN ${schema}.loss_possible()
              THEN ':' || floor(extract(epoch FROM pg_postmaster_start_time()) * 1000000)::bigint
              ELSE '' END
    FROM pg_control_system() s
$$;

-- Whether the server has kept its state for at least p_guard_ms: never promoted (timeline 1), and durable settings
-- or up for at least that long.
CREATE OR REPLACE FUNCTION ${schema}.state_kept_for(p_guard_ms bigint) RETURNS boolean LANGUAGE sql VOLATILE AS $$
  SELECT ${schema}.timeline() = 1
     AND (NOT ${schema}.loss_possible()
          OR clock_timestamp() - pg_postmaster_start_time() >= p_guard_ms * interval '1 millisecond')
$$;

-- Locks the row of pool p_pool (creating it if p_create; null if it does not exist and not p_create) and returns
-- until when the pool's claims wait, the lost-state guard:
-- - the guard recorded under the server's current incarnation, if any;
-- - else, for a new pool on a server that has kept its state for at least the guard: now (no wait);
-- - else (the incarnation changed: a restart with settings that allow losing commits, a promotion, a restore; or a
--   pool without a guard record: partial loss, or a row of schema version 4 or earlier) now + p_guard_ms, stamped
--   with a WARNING once per pool (the client logs it): every lease granted before has run out by then, so no member
--   still trusts one the store forgot.
CREATE OR REPLACE FUNCTION ${schema}.lock_pool(p_pool text, p_create boolean, p_guard_ms bigint)
RETURNS timestamptz LANGUAGE plpgsql AS $$
DECLARE
  v_current    text := ${schema}.incarnation();
  v_recorded   text;
  v_not_before timestamptz;
  v_found      boolean;
  v_reason     text;
BEGIN
  SELECT p.guard_incarnation, p.guard_not_before INTO v_recorded, v_not_before
    FROM ${schema}.pools p WHERE p.pool = p_pool FOR UPDATE;
  v_found := FOUND;
  IF v_found AND v_recorded = v_current THEN
    RETURN v_not_before;
  END IF;
  IF NOT v_found AND NOT p_create THEN
    RETURN NULL;
  END IF;
  IF NOT v_found AND ${schema}.state_kept_for(p_guard_ms) THEN
    v_not_before := clock_timestamp();
  ELSE
    v_not_before := clock_timestamp() + p_guard_ms * interval '1 millisecond';
    v_reason := CASE
      WHEN NOT v_found THEN 'a new pool on a server that may have lost state recently (incarnation ' || v_current
        || ': promoted, or settings that allow losing commits and up for less than the guard)'
      WHEN v_recorded IS NULL THEN 'the pool has no guard record (written by schema version 4 or earlier, or lost)'
      ELSE 'the server''s incarnation changed from ' || v_recorded || ' to ' || v_current
        || ' (a restart with settings that allow losing commits, a promotion or a restore)' END;
  END IF;
  IF v_found THEN
    UPDATE ${schema}.pools p SET guard_incarnation = v_current, guard_not_before = v_not_before
      WHERE p.pool = p_pool;
  ELSE
    INSERT INTO ${schema}.pools (pool, last_counter, guard_incarnation, guard_not_before)
      VALUES (p_pool, 0, v_current, v_not_before)
      ON CONFLICT (pool) DO NOTHING;
    IF NOT FOUND THEN
      RETURN ${schema}.lock_pool(p_pool, p_create, p_guard_ms); -- created meanwhile by another first registration
    END IF;
  END IF;
  IF v_reason IS NOT NULL THEN
    RAISE WARNING 'allot pool %: claims wait until % (lost-state guard of % ms): %', quote_literal(p_pool),
      v_not_before, p_guard_ms, v_reason;
  END IF;
  RETURN v_not_before;
END
$$;

-- The next session number or unit token of pool p_pool (its row locked by lock_pool): larger than the last one and
-- than the store time in µs, so a counter rolled back by lost state never hands out a number again.
CREATE OR REPLACE FUNCTION ${schema}.next_counter(p_pool text) RETURNS bigint LANGUAGE sql VOLATILE AS $$
  UPDATE ${schema}.pools p SET last_counter = greatest(p.last_counter + 1, ${schema}.clock_micros() + 1)
    WHERE p.pool = p_pool
    RETURNING p.last_counter
$$;

-- The counter of pool p_pool, its row locked by lock_pool (a claim batch advances it in memory: claim_all).
CREATE OR REPLACE FUNCTION ${schema}.pool_counter(p_pool text) RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT p.last_counter FROM ${schema}.pools p WHERE p.pool = p_pool
$$;

-- Records p_value as the counter of pool p_pool (its row locked by lock_pool) if larger; null changes nothing.
CREATE OR REPLACE FUNCTION ${schema}.advance_counter(p_pool text, p_value bigint) RETURNS void LANGUAGE sql VOLATILE AS $$
  UPDATE ${schema}.pools p SET last_counter = p_value WHERE p.pool = p_pool AND p_value > p.last_counter
$$;

-- WRONGTYPE (SQLSTATE AL001) if key p_key holds p_kind (null = the key does not exist) and that is not p_wanted.
CREATE OR REPLACE FUNCTION ${schema}.check_kind(p_key text, p_kind text, p_wanted text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_kind <> p_wanted THEN
    RAISE EXCEPTION 'WRONGTYPE: key % holds a %, not a %', quote_literal(p_key), p_kind, p_wanted
      USING ERRCODE = 'AL001';
  END IF;
END
$$;

-- NOTIFYs p_channel with p_payload if p_changed and a channel is given; returns p_changed.
CREATE OR REPLACE FUNCTION ${schema}.notify_if(p_changed boolean, p_channel text, p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF p_changed AND p_channel IS NOT NULL THEN
    PERFORM pg_notify(p_channel, p_payload);
  END IF;
  RETURN p_changed;
END
$$;

-- Locks the row of key p_key, which must hold a list (WRONGTYPE otherwise). With p_create the row is created if
-- missing; without, returns false if the key does not exist.
CREATE OR REPLACE FUNCTION ${schema}.lock_list(p_key text, p_create boolean) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_kind text;
BEGIN
  IF p_create THEN
    INSERT INTO ${schema}.keys AS k (key, kind) VALUES (p_key, 'list')
      ON CONFLICT (key) DO UPDATE SET kind = k.kind
      RETURNING k.kind INTO v_kind;
  ELSE
    SELECT k.kind INTO v_kind FROM ${schema}.keys k WHERE k.key = p_key FOR UPDATE;
    IF NOT FOUND THEN
      RETURN false;
    END IF;
  END IF;
  PERFORM ${schema}.check_kind(p_key, v_kind, 'list');
  RETURN true;
END
$$;

-- ---------------------------------------------------------------- lists
-- p_channel, p_payload: the notification announcing the change (Topic.key), sent only if the list changed; null when
-- called by another function (register, deregister), which announces on its own topic.

-- LPUSH p_value only if absent; true if added.
CREATE OR REPLACE FUNCTION ${schema}.add_to_list(
    p_key text, p_value text, p_channel text DEFAULT NULL, p_payload text DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ${schema}.lock_list(p_key, true);
  IF EXISTS (SELECT 1 FROM ${schema}.list_items i WHERE i.key = p_key AND i.value = p_value) THEN
    RETURN false;
  END IF;
  INSERT INTO ${schema}.list_items (key, pos, value)
    SELECT p_key, coalesce(min(i.pos), 0) - 1, p_value FROM ${schema}.list_items i WHERE i.key = p_key;
  RETURN ${schema}.notify_if(true, p_channel, p_payload);
END
$$;

-- LREM key 0 value; true if at least one was removed. An emptied list stops existing.
CREATE OR REPLACE FUNCTION ${schema}.remove_from_list(
    p_key text, p_value text, p_channel text DEFAULT NULL, p_payload text DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_removed bigint;
BEGIN
  IF NOT ${schema}.lock_list(p_key, false) THEN
    RETURN false;
  END IF;
  DELETE FROM ${schema}.list_items i WHERE i.key = p_key AND i.value = p_value;
  GET DIAGNOSTICS v_removed = ROW_COUNT;
  IF v_removed > 0 AND NOT EXISTS (SELECT 1 FROM ${schema}.list_items i WHERE i.key = p_key) THEN
    DELETE FROM ${schema}.keys k WHERE k.key = p_key;
  END IF;
  RETURN ${schema}.notify_if(v_removed > 0, p_channel, p_payload);
END
$$;

-- DEL key + RPUSH values (head first): replaces whatever the key held; an empty array deletes it. Always announced.
CREATE OR REPLACE FUNCTION ${schema}.replace_list(
    p_key text, p_values text[], p_channel text DEFAULT NULL, p_payload text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${schema}.keys AS k (key, kind) VALUES (p_key, 'list')
    ON CONFLICT (key) DO UPDATE SET kind = 'list';
  DELETE FROM ${schema}.list_items i WHERE i.key = p_key;
  DELETE FROM ${schema}.hash_fields h WHERE h.key = p_key;
  IF coalesce(cardinality(p_values), 0) = 0 THEN
    DELETE FROM ${schema}.keys k WHERE k.key = p_key;
  ELSE
    INSERT INTO ${schema}.list_items (key, pos, value)
      SELECT p_key, u.ord, u.value FROM unnest(p_values) WITH ORDINALITY AS u(value, ord);
  END IF;
  PERFORM ${schema}.notify_if(true, p_channel, p_payload);
END
$$;

-- ---------------------------------------------------------------- fenced publication

-- If (p_holder, p_token) is the live holder of lease p_lease (its row locked FOR UPDATE until commit, so nobody can
-- take the lease over meanwhile): upserts the fields (owned by p_group from now on; the publication mark of another
-- group that wrote one of them last is deleted), deletes the fields p_group still owns that are not in p_fields,
-- increments the epoch, records it as p_group's mark and NOTIFYs p_channel with p_payload || epoch.
-- Returns o_epoch; o_epoch null = fenced (nothing changed), with the current live holder, if any, in
-- (o_holder, o_token).
CREATE OR REPLACE FUNCTION ${schema}.publish(
    p_lease text, p_holder text, p_token bigint, p_key text, p_group text, p_fields text[], p_values text[],
    p_channel text, p_payload text,
    OUT o_epoch bigint, OUT o_holder text, OUT o_token bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_holder text;
  v_token  bigint;
  v_live   boolean;
  v_kind   text;
BEGIN
  SELECT l.holder, l.last_token, coalesce(l.expires_at > clock_timestamp(), false)
    INTO v_holder, v_token, v_live
    FROM ${schema}.leases l WHERE l.name = p_lease FOR UPDATE;
  IF NOT FOUND OR NOT v_live OR v_holder IS DISTINCT FROM p_holder OR v_token <> p_token THEN
    IF v_live AND v_holder IS NOT NULL THEN
      o_holder := v_holder;
      o_token := v_token;
    END IF;
    RETURN;
  END IF;

  INSERT INTO ${schema}.keys AS k (key, kind) VALUES (p_key, 'hash')
    ON CONFLICT (key) DO UPDATE SET kind = k.kind
    RETURNING k.kind INTO v_kind;
  PERFORM ${schema}.check_kind(p_key, v_kind, 'hash');

  DELETE FROM ${schema}.hash_fields h
    WHERE h.key = p_key AND h.writer_group = p_group
      AND NOT EXISTS (SELECT 1 FROM unnest(p_fields) AS f(name) WHERE f.name = h.field);
  PERFORM ${schema}.write_fields(p_key, p_group, p_fields, p_values);
  o_epoch := ${schema}.finish_publication(p_key, p_group, p_channel, p_payload);
END
$$;

-- For publish and publish_changes, under the keys row lock: deletes the publication marks of the other groups that
-- wrote one of p_fields last, then upserts the fields as p_group's (only rows that change are written).
CREATE OR REPLACE FUNCTION ${schema}.write_fields(p_key text, p_group text, p_fields text[], p_values text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ${schema}.publish_marks m
    WHERE m.hash_key = p_key AND m.grp <> p_group AND m.grp IN (
      SELECT h.writer_group FROM ${schema}.hash_fields h JOIN unnest(p_fields) AS f(name)
          ON h.key = p_key AND h.field = f.name
        WHERE h.writer_group IS DISTINCT FROM p_group);
  INSERT INTO ${schema}.hash_fields AS h (key, field, value, writer_group)
    SELECT p_key, u.field, u.value, p_group FROM unnest(p_fields, p_values) AS u(field, value)
    ON CONFLICT (key, field) DO UPDATE SET value = excluded.value, writer_group = excluded.writer_group
      WHERE h.value IS DISTINCT FROM excluded.value OR h.writer_group IS DISTINCT FROM excluded.writer_group;
END
$$;

-- For publish and publish_changes: drops an emptied hash, increments the epoch, records it as p_group's mark,
-- NOTIFYs p_channel with p_payload || epoch; returns the epoch.
CREATE OR REPLACE FUNCTION ${schema}.finish_publication(p_key text, p_group text, p_channel text, p_payload text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_epoch bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM ${schema}.hash_fields h WHERE h.key = p_key) THEN
    DELETE FROM ${schema}.keys k WHERE k.key = p_key;
  END IF;
  INSERT INTO ${schema}.epochs AS e (hash_key, epoch) VALUES (p_key, 1)
    ON CONFLICT (hash_key) DO UPDATE SET epoch = e.epoch + 1
    RETURNING e.epoch INTO v_epoch;
  INSERT INTO ${schema}.publish_marks AS m (hash_key, grp, epoch) VALUES (p_key, p_group, v_epoch)
    ON CONFLICT (hash_key, grp) DO UPDATE SET epoch = excluded.epoch;
  PERFORM pg_notify(p_channel, p_payload || v_epoch);
  RETURN v_epoch;
END
$$;

-- The incremental publication (PgTables): as publish, given only the difference to p_group's publication of epoch
-- p_mark, which wrote p_count fields: deletes the fields of p_dropped that p_group still owns, upserts p_fields.
-- Applies only if the lease is held as in publish, p_group's mark is p_mark and it still owns p_count fields (no one
-- else published the group, no other group overwrote one of its fields, the hash was not deleted); otherwise
-- nothing changes and o_stale is true (publish in full), or o_epoch null = fenced as in publish.
CREATE OR REPLACE FUNCTION ${schema}.publish_changes(
    p_lease text, p_holder text, p_token bigint, p_key text, p_group text, p_mark bigint, p_count bigint,
    p_dropped text[], p_fields text[], p_values text[], p_channel text, p_payload text,
    OUT o_epoch bigint, OUT o_holder text, OUT o_token bigint, OUT o_stale boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_holder text;
  v_token  bigint;
  v_live   boolean;
  v_kind   text;
  v_exists boolean;
  v_mark   bigint;
  v_count  bigint;
BEGIN
  o_stale := false;
  SELECT l.holder, l.last_token, coalesce(l.expires_at > clock_timestamp(), false)
    INTO v_holder, v_token, v_live
    FROM ${schema}.leases l WHERE l.name = p_lease FOR UPDATE;
  IF NOT FOUND OR NOT v_live OR v_holder IS DISTINCT FROM p_holder OR v_token <> p_token THEN
    IF v_live AND v_holder IS NOT NULL THEN
      o_holder := v_holder;
      o_token := v_token;
    END IF;
    RETURN;
  END IF;

  SELECT k.kind INTO v_kind FROM ${schema}.keys k WHERE k.key = p_key FOR UPDATE;
  v_exists := FOUND;
  IF v_exists THEN
    PERFORM ${schema}.check_kind(p_key, v_kind, 'hash');
  END IF;
  SELECT m.epoch INTO v_mark FROM ${schema}.publish_marks m WHERE m.hash_key = p_key AND m.grp = p_group;
  SELECT count(*) INTO v_count FROM ${schema}.hash_fields h WHERE h.key = p_key AND h.writer_group = p_group;
  IF v_mark IS DISTINCT FROM p_mark OR v_count <> p_count THEN
    o_stale := true;
    RETURN;
  END IF;
  IF NOT v_exists THEN
    INSERT INTO ${schema}.keys AS k (key, kind) VALUES (p_key, 'hash')
      ON CONFLICT (key) DO UPDATE SET kind = k.kind
      RETURNING k.kind INTO v_kind;
    PERFORM ${schema}.check_kind(p_key, v_kind, 'hash');
  END IF;

  DELETE FROM ${schema}.hash_fields h
    WHERE h.key = p_key AND h.writer_group = p_group AND h.field = ANY (p_dropped);
  PERFORM ${schema}.write_fields(p_key, p_group, p_fields, p_values);
  o_epoch := ${schema}.finish_publication(p_key, p_group, p_channel, p_payload);
END
$$;

-- ---------------------------------------------------------------- membership

-- Under the pool's row lock (lock_pool: the lost-state guard is stamped if needed): refused with SQLSTATE AL002 (and
-- the store time in ms from which p_id may register again, lease end + p_margin_ms, as DETAIL) if p_id has a record
-- whose lease has not been over for p_margin_ms, live or not, whatever its session: nothing changes. Else a new
-- session from the pool counter, the registration (superseding an expired previous session of p_id) with a lease
-- of p_ttl_ms and the attributes p_attributes (MemberMeta.encodeAttributes()), LPUSH p_id into the services list
-- p_pool if absent (WRONGTYPE rolls everything back), NOTIFY.
CREATE OR REPLACE FUNCTION ${schema}.register(
    p_pool text, p_id text, p_affinity integer, p_capacity integer, p_ttl_ms bigint, p_channel text, p_payload text,
    p_attributes text DEFAULT '', p_guard_ms bigint DEFAULT 3000, p_margin_ms bigint DEFAULT 200)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_session bigint;
  v_until   timestamptz;
BEGIN
  PERFORM ${schema}.lock_pool(p_pool, true, p_guard_ms);
  SELECT m.lease_until INTO v_until FROM ${schema}.members m WHERE m.pool = p_pool AND m.id = p_id FOR UPDATE;
  IF FOUND AND v_until + p_margin_ms * interval '1 millisecond' > clock_timestamp() THEN
    RAISE EXCEPTION 'member id % is live in pool % under another session', quote_literal(p_id),
      quote_literal(p_pool)
      USING ERRCODE = 'AL002', DETAIL = (ceil(extract(epoch FROM v_until) * 1000)::bigint + p_margin_ms)::text;
  END IF;
  v_session := ${schema}.next_counter(p_pool);
  INSERT INTO ${schema}.members AS m (pool, id, affinity, capacity, attributes, session, lease_until)
    VALUES (p_pool, p_id, p_affinity, p_capacity, p_attributes, v_session,
            clock_timestamp() + p_ttl_ms * interval '1 millisecond')
    ON CONFLICT (pool, id) DO UPDATE
      SET affinity = excluded.affinity, capacity = excluded.capacity, attributes = excluded.attributes,
          session = excluded.session, lease_until = excluded.lease_until;
  PERFORM ${schema}.add_to_list(p_pool, p_id);
  PERFORM pg_notify(p_channel, p_payload);
  RETURN v_session;
END
$$;

-- Extends the lease of a live current session to now + p_ttl_ms; false otherwise. Locks the member row first and
-- THEN tests session and lease: a claim holds the owner's row FOR SHARE from the moment it tests the lease until it
-- commits, so a renewal waits for that claim and then finds the lease over, instead of applying a test it made
-- before (a plain conditional UPDATE that qualified while the lease was live would revive it after the claim saw
-- it expired and took the units).
CREATE OR REPLACE FUNCTION ${schema}.renew_member(p_pool text, p_id text, p_session bigint, p_ttl_ms bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_session bigint;
  v_until   timestamptz;
BEGIN
  SELECT m.session, m.lease_until INTO v_session, v_until
    FROM ${schema}.members m WHERE m.pool = p_pool AND m.id = p_id FOR UPDATE;
  IF NOT FOUND OR v_session <> p_session OR v_until <= clock_timestamp() THEN
    RETURN false;
  END IF;
  UPDATE ${schema}.members m SET lease_until = clock_timestamp() + p_ttl_ms * interval '1 millisecond'
    WHERE m.pool = p_pool AND m.id = p_id;
  RETURN true;
END
$$;

-- Replaces affinity, capacity and attributes (null = keep them: a caller of the old form) of a live current session
-- (lease unchanged) and NOTIFYs; false otherwise.
CREATE OR REPLACE FUNCTION ${schema}.update_member(
    p_pool text, p_id text, p_session bigint, p_affinity integer, p_capacity integer, p_channel text,
    p_payload text, p_attributes text DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ${schema}.members m
    SET affinity = p_affinity, capacity = p_capacity, attributes = coalesce(p_attributes, m.attributes)
    WHERE m.pool = p_pool AND m.id = p_id AND m.session = p_session AND m.lease_until > clock_timestamp();
  RETURN ${schema}.notify_if(FOUND, p_channel, p_payload);
END
$$;

-- If p_session is p_id's recorded session (live or not) and, when p_expired_by_ms is given, its lease has been over
-- for at least that long (removeIfExpired): deletes the registration, LREMs p_id from the services list, NOTIFYs.
-- Units it owned stay recorded but are claimable. WRONGTYPE if p_pool holds a hash. Locks the member row before the
-- list's row, like register; a renewal in flight is waited for and the lease tested on the row it committed.
CREATE OR REPLACE FUNCTION ${schema}.deregister(p_pool text, p_id text, p_session bigint, p_channel text,
    p_payload text, p_expired_by_ms bigint DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_kind text;
BEGIN
  SELECT k.kind INTO v_kind FROM ${schema}.keys k WHERE k.key = p_pool;
  PERFORM ${schema}.check_kind(p_pool, v_kind, 'list');
  DELETE FROM ${schema}.members m WHERE m.pool = p_pool AND m.id = p_id AND m.session = p_session
    AND (p_expired_by_ms IS NULL
         OR m.lease_until + p_expired_by_ms * interval '1 millisecond' <= clock_timestamp());
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM ${schema}.remove_from_list(p_pool, p_id);
  PERFORM pg_notify(p_channel, p_payload);
  RETURN true;
END
$$;

-- ---------------------------------------------------------------- ownership

-- Claims each of p_units for (p_member, p_session); the result has one element per unit, in order: the fencing
-- token, or null if refused. One transaction, a few statements whatever the number of units:
-- 1. Without any lock, a unit owned by a session other than (p_member, p_session) whose lease has not been over for
--    p_margin_ms is refused. Refusing is always safe, so a stale read only costs a refusal the claimer retries on the
--    release announcement (its next statement sees the committed release); whatever looks claimable is tested again
--    under the locks below. Without this step, every early claim of a unit still owned (the new owner asking during
--    a planned handoff, hundreds per second) queued behind the pool's row lock and held the unit's row until commit,
--    so the owner's release waited for the refusal. A batch of refusals takes no lock at all.
-- 2. The pool's row is locked (lock_pool: the lost-state guard, p_not_before; null if nobody ever registered in the
--    pool: all refused); refused unless (p_member, p_session) is current and live.
-- 3. The rows of the units left are locked FOR UPDATE in unit order (COLLATE "C", as release_units deletes them: no
--    wait cycles), then the member rows of their owners' sessions FOR SHARE. Under READ COMMITTED a plain read sees
--    the last committed lease, so a renewal whose lease test already passed but has not committed yet (a slow WAL
--    flush) would be invisible, and a claim just after the old expiry would take the unit although the renewal then
--    succeeds and the owner keeps running it. The lock makes the claim wait for that renewal; it locks by key only
--    (id and session, which a renewal does not change: a WHERE on the lease would skip the row without waiting) and
--    the leases are read after it, on the rows as locked. A renewal that comes later waits until the claim commits,
--    then finds the lease over (renew_member). The claimer's own row is not locked.
-- 4. Per unit, in unit order: the same session already owning it gets its token again (even while the guard lasts);
--    refused while the guard lasts; refused if another current session owns it and its lease has not been over for
--    p_margin_ms (a forward step of the server's clock smaller than the margin takes nothing early); otherwise a new
--    token greatest(counter + 1, store µs + 1), the pool's counter advanced over it (next_counter's values, written
--    back once). All grants are written by one statement.
CREATE OR REPLACE FUNCTION ${schema}.claim_all(p_pool text, p_units text[], p_member text, p_session bigint,
    p_guard_ms bigint DEFAULT 3000, p_margin_ms bigint DEFAULT 200)
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  v_margin     interval := p_margin_ms * interval '1 millisecond';
  v_ask        text[];
  v_not_before timestamptz;
  v_counter    bigint;
  v_units      text[] := '{}';
  v_tokens     bigint[] := '{}';
  v_new_units  text[] := '{}';
  v_new_tokens bigint[] := '{}';
  r            record;
BEGIN
  SELECT coalesce(array_agg(a.u ORDER BY a.u COLLATE "C"), '{}') INTO v_ask
    FROM (SELECT DISTINCT x.u FROM unnest(p_units) AS x (u)) a
    WHERE NOT EXISTS (
      SELECT 1 FROM ${schema}.ownership o
        JOIN ${schema}.members m ON m.pool = o.pool AND m.id = o.member AND m.session = o.session
        WHERE o.pool = p_pool AND o.unit = a.u AND NOT (o.member = p_member AND o.session = p_session)
          AND m.lease_until + v_margin > clock_timestamp());
  IF cardinality(v_ask) > 0 THEN
    v_not_before := ${schema}.lock_pool(p_pool, false, p_guard_ms);
  END IF;
  IF v_not_before IS NULL OR NOT EXISTS (
      SELECT 1 FROM ${schema}.members m
        WHERE m.pool = p_pool AND m.id = p_member AND m.session = p_session AND m.lease_until > clock_timestamp()) THEN
    RETURN array_fill(NULL::bigint, ARRAY[coalesce(array_length(p_units, 1), 0)]);
  END IF;
  v_counter := ${schema}.pool_counter(p_pool);
  PERFORM 1 FROM ${schema}.ownership o
    WHERE o.pool = p_pool AND o.unit = ANY (v_ask) ORDER BY o.unit COLLATE "C" FOR UPDATE;
  PERFORM 1 FROM ${schema}.members m
    WHERE m.pool = p_pool AND (m.id, m.session) IN (
      SELECT o.member, o.session FROM ${schema}.ownership o
        WHERE o.pool = p_pool AND o.unit = ANY (v_ask) AND NOT (o.member = p_member AND o.session = p_session))
    ORDER BY m.id COLLATE "C" FOR SHARE;
  FOR r IN
    SELECT a.u AS unit, o.member, o.session, o.token, m.lease_until
      FROM unnest(v_ask) AS a (u)
      LEFT JOIN ${schema}.ownership o ON o.pool = p_pool AND o.unit = a.u
      LEFT JOIN ${schema}.members m ON m.pool = p_pool AND m.id = o.member AND m.session = o.session
      ORDER BY a.u COLLATE "C" LOOP
    IF r.member = p_member AND r.session = p_session THEN
      v_units := v_units || r.unit;
      v_tokens := v_tokens || r.token;
      v_counter := greatest(v_counter, r.token); -- above the counter only after a partial loss of the pools row
    ELSIF clock_timestamp() < v_not_before THEN
      NULL; -- waiting out the lost-state guard
    ELSIF r.lease_until IS NOT NULL AND r.lease_until + v_margin > clock_timestamp() THEN
      NULL; -- owned by a live session, or one whose lease ended less than the margin ago
    ELSE
      v_counter := greatest(v_counter + 1, ${schema}.clock_micros() + 1);
      v_units := v_units || r.unit;
      v_tokens := v_tokens || v_counter;
      v_new_units := v_new_units || r.unit;
      v_new_tokens := v_new_tokens || v_counter;
    END IF;
  END LOOP;
  INSERT INTO ${schema}.ownership AS o (pool, unit, member, session, token)
    SELECT p_pool, g.u, p_member, p_session, g.t FROM unnest(v_new_units, v_new_tokens) AS g (u, t)
    ON CONFLICT (pool, unit) DO UPDATE
      SET member = excluded.member, session = excluded.session, token = excluded.token;
  PERFORM ${schema}.advance_counter(p_pool, v_counter);
  RETURN (SELECT coalesce(array_agg(g.t ORDER BY x.n), '{}')
            FROM unnest(p_units) WITH ORDINALITY AS x (u, n)
            LEFT JOIN unnest(v_units, v_tokens) AS g (u, t) ON g.u = x.u);
END
$$;

-- claim_all() of one unit.
CREATE OR REPLACE FUNCTION ${schema}.claim(p_pool text, p_unit text, p_member text, p_session bigint,
    p_guard_ms bigint DEFAULT 3000, p_margin_ms bigint DEFAULT 200)
RETURNS bigint LANGUAGE sql AS $$
  SELECT (${schema}.claim_all(p_pool, ARRAY[p_unit], p_member, p_session, p_guard_ms, p_margin_ms))[1]
$$;

-- Compare-and-delete on (member, token); if released and p_hold_ms > 0, records that p_member declines the unit
-- until now + p_hold_ms (replacing an earlier hold of the unit); then NOTIFY. True if released.
CREATE OR REPLACE FUNCTION ${schema}.release_unit(
    p_pool text, p_unit text, p_member text, p_token bigint, p_channel text, p_payload text,
    p_hold_ms bigint DEFAULT 0)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_released boolean;
BEGIN
  DELETE FROM ${schema}.ownership o
    WHERE o.pool = p_pool AND o.unit = p_unit AND o.member = p_member AND o.token = p_token;
  v_released := FOUND;
  IF v_released AND p_hold_ms > 0 THEN
    INSERT INTO ${schema}.holds AS h (pool, unit, member, until)
      VALUES (p_pool, p_unit, p_member, clock_timestamp() + p_hold_ms * interval '1 millisecond')
      ON CONFLICT (pool, unit) DO UPDATE SET member = excluded.member, until = excluded.until;
  END IF;
  RETURN ${schema}.notify_if(v_released, p_channel, p_payload);
END
$$;

-- release_unit() without a hold for each unit with its token, in one transaction, the units' rows deleted in unit
-- order (COLLATE "C", as claim_all locks them): one commit and one turn at the lock PostgreSQL takes to queue
-- NOTIFYs (held through the commit's WAL flush, so NOTIFYing transactions commit one at a time) instead of one per
-- unit. Returns the units released (in unit order).
CREATE OR REPLACE FUNCTION ${schema}.release_units(
    p_pool text, p_units text[], p_member text, p_tokens bigint[], p_channel text, p_payloads text[])
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  v_out     text[] := '{}';
  v_unit    text;
  v_token   bigint;
  v_payload text;
BEGIN
  FOR v_unit, v_token, v_payload IN
      SELECT u, t, m FROM unnest(p_units, p_tokens, p_payloads) AS x (u, t, m) ORDER BY u COLLATE "C" LOOP
    DELETE FROM ${schema}.ownership o
      WHERE o.pool = p_pool AND o.unit = v_unit AND o.member = p_member AND o.token = v_token;
    IF FOUND THEN
      v_out := array_append(v_out, v_unit);
      PERFORM pg_notify(p_channel, v_payload);
    END IF;
  END LOOP;
  RETURN v_out;
END
$$;

-- A planned handoff (Ownership.handOffAll): release_units() for each unit with its token, and each released unit
-- whose p_to names another member whose session is current and whose lease is live is granted at once to that
-- session, unless the pool waits out its lost-state guard: a new token greatest(counter + 1, store µs + 1) as in
-- claim_all (the pool's row locked first by lock_pool, only when some unit names a member; the counter written back
-- once), announced as p_grant_prefix || chr(1) || token|session|member|unit (Handoff.grantMessage); the others are
-- announced as release_units() does (p_payloads). One transaction; lock order pools -> ownership (unit order,
-- COLLATE "C"). The new owner's member row is read without a lock: a renewal in flight never revives an expired
-- lease, and a session superseded right after leaves the unit claimable by anyone. Returns the units released (in
-- unit order).
CREATE OR REPLACE FUNCTION ${schema}.hand_off_units(
    p_pool text, p_units text[], p_member text, p_tokens bigint[], p_to text[], p_channel text, p_payloads text[],
    p_grant_prefix text, p_guard_ms bigint DEFAULT 3000)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  v_out        text[] := '{}';
  v_not_before timestamptz;
  v_counter    bigint;
  v_session    bigint;
  r            record;
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(p_to) AS d (m) WHERE d.m IS NOT NULL AND d.m <> p_member) THEN
    v_not_before := ${schema}.lock_pool(p_pool, false, p_guard_ms);
    IF v_not_before IS NOT NULL THEN
      v_counter := ${schema}.pool_counter(p_pool);
    END IF;
  END IF;
  FOR r IN
      SELECT x.u, x.t, x.d, x.pl FROM unnest(p_units, p_tokens, p_to, p_payloads) AS x (u, t, d, pl)
        ORDER BY x.u COLLATE "C" LOOP
    DELETE FROM ${schema}.ownership o
      WHERE o.pool = p_pool AND o.unit = r.u AND o.member = p_member AND o.token = r.t;
    CONTINUE WHEN NOT FOUND;
    v_out := array_append(v_out, r.u);
    v_session := NULL;
    IF r.d IS NOT NULL AND r.d <> p_member AND v_counter IS NOT NULL AND clock_timestamp() >= v_not_before THEN
      SELECT m.session INTO v_session FROM ${schema}.members m
        WHERE m.pool = p_pool AND m.id = r.d AND m.lease_until > clock_timestamp();
    END IF;
    IF v_session IS NULL THEN
      PERFORM pg_notify(p_channel, r.pl);
    ELSE
      v_counter := greatest(v_counter + 1, ${schema}.clock_micros() + 1);
      INSERT INTO ${schema}.ownership (pool, unit, member, session, token)
        VALUES (p_pool, r.u, r.d, v_session, v_counter);
      PERFORM pg_notify(p_channel,
        p_grant_prefix || chr(1) || v_counter || '|' || v_session || '|' || r.d || '|' || r.u);
    END IF;
  END LOOP;
  IF v_counter IS NOT NULL THEN
    PERFORM ${schema}.advance_counter(p_pool, v_counter);
  END IF;
  RETURN v_out;
END
$$;

-- ---------------------------------------------------------------- job queues (schema version 7, tables renamed in 9)

-- Locks up to p_max runnable jobs of p_queue for p_worker (JobQueue.claim): todo/failed jobs whose time has
-- come and processing ones whose lock expired at least the clock margin ago, highest priority first, then earliest
-- due; never a row another claim holds (SKIP LOCKED). A picked job whose expired lock was its last attempt is
-- ignored instead. With a rate limit, at most the permits in the queue's bucket (its row locked only then, so
-- unlimited queues never serialize their claimers; the bucket's time is read once its row is locked and never goes
-- back: schema version 10). Tokens: greatest(previous + 1, store time in microseconds). Each job also comes with
-- its due time before the claim (schema version 13: the queue wait of ClaimedJob.dueAtMillis). When the bucket had
-- fewer permits than p_max and a runnable job is left, one more row follows the jobs: t_key NULL, t_rate_limited
-- true (schema version 14: ClaimedJobs.rateLimited, a rate-limit wait told apart from an empty queue; the check is
-- one index probe, made only when the bucket cut the claim).
-- Lock order: job_queues -> jobs.
CREATE OR REPLACE FUNCTION ${schema}.claim_jobs(p_queue text, p_worker text, p_max integer, p_ttl_micros bigint,
    p_margin_micros bigint)
RETURNS TABLE (t_key text, t_data text, t_token bigint, t_attempt integer, t_max_attempts integer,
    t_locked_until_ms bigint, t_was_due_ms bigint, t_rate_limited boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_now     timestamptz := clock_timestamp();
  v_micros  bigint := floor(extract(epoch FROM v_now) * 1000000)::bigint;
  v_allowed integer := p_max;
  v_rate    double precision;
  v_permits double precision;
  v_claimed integer;
  v_refilled timestamptz;
BEGIN
  SELECT q.rate INTO v_rate FROM ${schema}.job_queues q WHERE q.queue = p_queue;
  IF v_rate > 0 THEN
    SELECT q.refilled_at INTO v_refilled FROM ${schema}.job_queues q WHERE q.queue = p_queue FOR UPDATE;
    -- the clock is read again once the bucket's row is ours: a claimer that waited for it must not refill from a
    -- time before the last refill, nor write that older time back (the next claimer would refill the span again)
    v_now := clock_timestamp();
    v_micros := floor(extract(epoch FROM v_now) * 1000000)::bigint;
    v_refilled := greatest(v_now, v_refilled); -- and never backwards, should the store's clock step back
    SELECT q.rate, least(greatest(1, q.rate), q.permits + extract(epoch FROM v_refilled - q.refilled_at) * q.rate)
      INTO v_rate, v_permits
      FROM ${schema}.job_queues q WHERE q.queue = p_queue;
    v_allowed := least(p_max, floor(v_permits)::integer);
  END IF;
  IF v_allowed > 0 THEN
    RETURN QUERY
    WITH picked AS (
      SELECT t.key, t.priority, t.due_at AS was_due
        FROM ${schema}.jobs t
       WHERE t.queue = p_queue AND t.status < 50 AND t.due_at <= v_now
         AND (t.status <> 30 OR t.due_at <= v_now - p_margin_micros * interval '1 microsecond')
       ORDER BY t.priority DESC, t.due_at, t.key
       LIMIT v_allowed
         FOR UPDATE SKIP LOCKED
    ), ignored AS (
      UPDATE ${schema}.jobs t
         SET status = 70, updated_at = v_now,
             last_error = 'lock of ' || t.locked_by || ' expired on the last attempt (' || t.attempts || ' of '
               || t.max_attempts || ')'
        FROM picked p
       WHERE t.queue = p_queue AND t.key = p.key AND t.status = 30 AND t.attempts >= t.max_attempts
      RETURNING t.key
    ), claimed AS (
      UPDATE ${schema}.jobs t
         SET status = 30, attempts = t.attempts + 1, lock_token = greatest(t.lock_token + 1, v_micros),
             locked_by = p_worker, due_at = v_now + p_ttl_micros * interval '1 microsecond', updated_at = v_now
        FROM picked p
       WHERE t.queue = p_queue AND t.key = p.key AND NOT (t.status = 30 AND t.attempts >= t.max_attempts)
      RETURNING t.key, t.data, t.lock_token, t.attempts, t.max_attempts,
                floor(extract(epoch FROM t.due_at) * 1000)::bigint AS until_ms, p.priority, p.was_due
    )
    SELECT c.key, c.data, c.lock_token, c.attempts, c.max_attempts, c.until_ms,
           floor(extract(epoch FROM c.was_due) * 1000)::bigint, false
      FROM claimed c ORDER BY c.priority DESC, c.was_due, c.key;
    GET DIAGNOSTICS v_claimed = ROW_COUNT;
  ELSE
    v_claimed := 0;
  END IF;
  IF v_rate > 0 THEN
    UPDATE ${schema}.job_queues q SET permits = v_permits - v_claimed, refilled_at = v_refilled
     WHERE q.queue = p_queue;
    -- the jobs just claimed are locked until v_now + ttl, so a runnable one found now was left for want of a permit
    IF v_allowed < p_max AND EXISTS (
        SELECT 1 FROM ${schema}.jobs t
         WHERE t.queue = p_queue AND t.status < 50 AND t.due_at <= v_now
           AND (t.status <> 30 OR t.due_at <= v_now - p_margin_micros * interval '1 microsecond')) THEN
      RETURN QUERY SELECT NULL::text, NULL::text, NULL::bigint, NULL::integer, NULL::integer, NULL::bigint,
          NULL::bigint, true;
    END IF;
  END IF;
END
$$;

-- Sets a queue's rate limit (JobQueue.limitRate): permits earned so far are kept up to the new bucket size; a
-- queue that had no limit starts with an empty bucket.
CREATE OR REPLACE FUNCTION ${schema}.limit_job_rate(p_queue text, p_rate double precision)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO ${schema}.job_queues AS q (queue, rate, permits, refilled_at)
  VALUES (p_queue, p_rate, 0, clock_timestamp())
  ON CONFLICT (queue) DO UPDATE
    SET permits = CASE WHEN q.rate > 0
                       THEN least(greatest(1, excluded.rate),
                                  q.permits + greatest(0, extract(epoch FROM clock_timestamp() - q.refilled_at)) * q.rate)
                       ELSE 0 END,
        rate = excluded.rate,
        refilled_at = clock_timestamp()
$$;

-- ---------------------------------------------------------------- long-running task specs

-- A change of pool p_pool's specs: bumps its version (the row is created at the first change) and NOTIFYs.
CREATE OR REPLACE FUNCTION ${schema}.task_spec_changed(p_pool text, p_channel text, p_payload text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${schema}.task_spec_versions AS v (pool, version) VALUES (p_pool, 1)
  ON CONFLICT (pool) DO UPDATE SET version = v.version + 1;
  PERFORM pg_notify(p_channel, p_payload);
END
$$;

-- TaskSpecs.create: a new live spec where there is none or a tombstone (revision = the tombstone's + 1, run and
-- fault cleared): CREATED; a live spec is left as it is: EXISTS (same args and cost) or CONFLICT. One INSERT ... ON
-- CONFLICT decides, so concurrent creates of one name make one spec; a live row it does not update stays locked
-- by it until the end, so the spec returned is the one that was there.
CREATE OR REPLACE FUNCTION ${schema}.create_task_spec(
    p_pool text, p_name text, p_args text, p_cost integer, p_channel text, p_payload text)
RETURNS TABLE (o_outcome text, o_spec ${schema}.task_specs) LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := clock_timestamp();
  r     ${schema}.task_specs;
BEGIN
  INSERT INTO ${schema}.task_specs AS t (pool, name, args, cost, revision, created_at, updated_at)
  VALUES (p_pool, p_name, p_args, p_cost, 1, v_now, v_now)
  ON CONFLICT (pool, name) DO UPDATE
    SET args = excluded.args, cost = excluded.cost, revision = t.revision + 1, created_at = excluded.created_at,
        updated_at = excluded.updated_at, deleted_at = NULL, run_member = NULL, run_token = NULL,
        run_revision = NULL, run_started_at = NULL, fault_failures = NULL, fault_failing = NULL,
        fault_error = NULL, fault_at_ms = NULL
    WHERE t.deleted_at IS NOT NULL
  RETURNING * INTO r;
  IF FOUND THEN
    PERFORM ${schema}.task_spec_changed(p_pool, p_channel, p_payload);
    o_outcome := 'CREATED';
  ELSE
    SELECT * INTO r FROM ${schema}.task_specs t WHERE t.pool = p_pool AND t.name = p_name;
    o_outcome := CASE WHEN r.args = p_args AND r.cost = p_cost THEN 'EXISTS' ELSE 'CONFLICT' END;
  END IF;
  o_spec := r;
  RETURN NEXT;
END
$$;

-- TaskSpecs.update: the live spec with new args and cost, revision + 1 (UPDATED), or unchanged if they are the
-- same (SAME); no row without a live spec.
CREATE OR REPLACE FUNCTION ${schema}.update_task_spec(
    p_pool text, p_name text, p_args text, p_cost integer, p_channel text, p_payload text)
RETURNS TABLE (o_outcome text, o_spec ${schema}.task_specs) LANGUAGE plpgsql AS $$
DECLARE
  r ${schema}.task_specs;
BEGIN
  SELECT * INTO r FROM ${schema}.task_specs t
   WHERE t.pool = p_pool AND t.name = p_name AND t.deleted_at IS NULL FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF r.args = p_args AND r.cost = p_cost THEN
    o_outcome := 'SAME';
  ELSE
    UPDATE ${schema}.task_specs t
       SET args = p_args, cost = p_cost, revision = t.revision + 1, updated_at = clock_timestamp()
     WHERE t.pool = p_pool AND t.name = p_name
    RETURNING * INTO r;
    PERFORM ${schema}.task_spec_changed(p_pool, p_channel, p_payload);
    o_outcome := 'UPDATED';
  END IF;
  o_spec := r;
  RETURN NEXT;
END
$$;

-- TaskSpecs.delete: the live spec becomes a tombstone, deleted and updated now (DELETED); a tombstone is returned as
-- it is (SAME); no row without a spec.
CREATE OR REPLACE FUNCTION ${schema}.delete_task_spec(p_pool text, p_name text, p_channel text, p_payload text)
RETURNS TABLE (o_outcome text, o_spec ${schema}.task_specs) LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz;
  r     ${schema}.task_specs;
BEGIN
  SELECT * INTO r FROM ${schema}.task_specs t WHERE t.pool = p_pool AND t.name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF r.deleted_at IS NOT NULL THEN
    o_outcome := 'SAME';
  ELSE
    v_now := clock_timestamp();
    UPDATE ${schema}.task_specs t SET deleted_at = v_now, updated_at = v_now
     WHERE t.pool = p_pool AND t.name = p_name
    RETURNING * INTO r;
    PERFORM ${schema}.task_spec_changed(p_pool, p_channel, p_payload);
    o_outcome := 'DELETED';
  END IF;
  o_spec := r;
  RETURN NEXT;
END
$$;

-- TaskSpecs.started: records the run (started now) unless the recorded run's token is above p_token; the fault
-- stays only under the same token. True if recorded. (p_channel and p_payload are unused: reports are not announced.)
CREATE OR REPLACE FUNCTION ${schema}.task_spec_started(
    p_pool text, p_name text, p_member text, p_token bigint, p_revision bigint, p_channel text, p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_done boolean;
BEGIN
  UPDATE ${schema}.task_specs t
     SET run_member = p_member, run_token = p_token, run_revision = p_revision, run_started_at = clock_timestamp(),
         fault_failures = CASE WHEN t.run_token = p_token THEN t.fault_failures END,
         fault_failing = CASE WHEN t.run_token = p_token THEN t.fault_failing END,
         fault_error = CASE WHEN t.run_token = p_token THEN t.fault_error END,
         fault_at_ms = CASE WHEN t.run_token = p_token THEN t.fault_at_ms END
   WHERE t.pool = p_pool AND t.name = p_name AND (t.run_token IS NULL OR t.run_token <= p_token);
  RETURN FOUND; -- a report, not a change of the spec: no version bump, no NOTIFY (see TaskSpecs)
END
$$;

-- TaskSpecs.fault: writes the fault (all null: clears it) if the recorded run holds p_token. True if recorded.
CREATE OR REPLACE FUNCTION ${schema}.task_spec_fault(
    p_pool text, p_name text, p_token bigint, p_failures integer, p_failing boolean, p_error text, p_at_ms bigint,
    p_channel text, p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_done boolean;
BEGIN
  UPDATE ${schema}.task_specs t
     SET fault_failures = p_failures, fault_failing = p_failing, fault_error = p_error, fault_at_ms = p_at_ms
   WHERE t.pool = p_pool AND t.name = p_name AND t.run_token = p_token;
  RETURN FOUND; -- a report, not a change of the spec: no version bump, no NOTIFY (see TaskSpecs)
END
$$;

-- TaskSpecs.purge: deletes the tombstone of revision p_revision. True if deleted.
CREATE OR REPLACE FUNCTION ${schema}.purge_task_spec(
    p_pool text, p_name text, p_revision bigint, p_channel text, p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_done boolean;
BEGIN
  DELETE FROM ${schema}.task_specs t
   WHERE t.pool = p_pool AND t.name = p_name AND t.deleted_at IS NOT NULL AND t.revision = p_revision;
  v_done := FOUND;
  IF v_done THEN
    PERFORM ${schema}.task_spec_changed(p_pool, p_channel, p_payload);
  END IF;
  RETURN v_done;
END
$$;

-- ---------------------------------------------------------------- live routing weights (schema version 11)

-- RouteWeights.set: the pool's weights replaced whole (p_versions[i] -> p_weights[i]; none: cleared), its revision
-- + 1 (the upsert's row lock serializes the sets of one pool), NOTIFY with the new revision appended to p_payload.
CREATE OR REPLACE FUNCTION ${schema}.set_route_weights(
    p_pool text, p_versions text[], p_weights bigint[], p_channel text, p_payload text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_revision bigint;
BEGIN
  INSERT INTO ${schema}.route_weight_revisions AS r (pool, revision) VALUES (p_pool, 1)
  ON CONFLICT (pool) DO UPDATE SET revision = r.revision + 1
  RETURNING r.revision INTO v_revision;
  DELETE FROM ${schema}.route_weights w WHERE w.pool = p_pool;
  INSERT INTO ${schema}.route_weights (pool, version, weight)
  SELECT p_pool, t.v, t.w::integer FROM unnest(p_versions, p_weights) AS t(v, w);
  PERFORM pg_notify(p_channel, p_payload || v_revision);
  RETURN v_revision;
END
$$;

-- ---------------------------------------------------------------- event history

-- Appends an event (PgEvents.append): the next id (locking event_ids' row, so appends are serialized and ids become
-- visible in order; never below the store time in µs, so ids keep growing after a loss), the row, then deletes the
-- pool's oldest beyond p_per_pool and every event older than p_max_age_ms. Returns the id and the time (ms).
CREATE OR REPLACE FUNCTION ${schema}.append_event(
    p_pool text, p_kind text, p_actor text, p_subject text, p_detail text, p_per_pool integer, p_max_age_ms bigint,
    OUT o_id bigint, OUT o_at bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_cut bigint;
BEGIN
  UPDATE ${schema}.event_ids e SET last = greatest(e.last + 1, ${schema}.clock_micros()) RETURNING e.last INTO o_id;
  o_at := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  INSERT INTO ${schema}.events (id, at_ms, pool, kind, actor, subject, detail)
  VALUES (o_id, o_at, p_pool, p_kind, p_actor, p_subject, p_detail);
  IF p_pool IS NULL THEN
    SELECT e.id INTO v_cut FROM ${schema}.events e WHERE e.pool IS NULL ORDER BY e.id DESC OFFSET p_per_pool LIMIT 1;
    IF v_cut IS NOT NULL THEN
      DELETE FROM ${schema}.events e WHERE e.pool IS NULL AND e.id <= v_cut;
    END IF;
  ELSE
    SELECT e.id INTO v_cut FROM ${schema}.events e WHERE e.pool = p_pool ORDER BY e.id DESC OFFSET p_per_pool LIMIT 1;
    IF v_cut IS NOT NULL THEN
      DELETE FROM ${schema}.events e WHERE e.pool = p_pool AND e.id <= v_cut;
    END IF;
  END IF;
  DELETE FROM ${schema}.events e WHERE e.at_ms < o_at - p_max_age_ms;
END
$$;

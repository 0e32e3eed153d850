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
-- Row lock order (no cycles, so no deadlocks): leases -> keys -> epochs (publish); pools -> members -> keys
-- (register); members -> keys (deregister); pools -> ownership -> members (claim, the owner's row FOR SHARE);
-- members alone (renew, update member); ownership alone (release unit); keys alone (list operations).

-- ---------------------------------------------------------------- signatures of earlier releases

-- Up to schema version 3 the list functions did not notify, and register and update_member took no attributes.
-- Their new parameters come last with defaults, so a call of the old form (from a process of the previous release
-- still running during an upgrade) resolves to the new function.
DROP FUNCTION IF EXISTS ${schema}.add_to_list(text, text);
DROP FUNCTION IF EXISTS ${schema}.remove_from_list(text, text);
DROP FUNCTION IF EXISTS ${schema}.replace_list(text, text[]);
DROP FUNCTION IF EXISTS ${schema}.register(text, text, integer, integer, bigint, text, text);
DROP FUNCTION IF EXISTS ${schema}.update_member(text, text, bigint, integer, integer, text, text);

-- ---------------------------------------------------------------- helpers

-- The store clock in microseconds since the epoch: seeds token counters so they keep increasing after data loss.
CREATE OR REPLACE FUNCTION ${schema}.clock_micros() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint
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
-- take the lease over meanwhile): upserts the fields (owned by p_group from now on), deletes the fields p_group
-- still owns that are not in p_fields, increments the epoch and NOTIFYs p_channel with p_payload || epoch.
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
  INSERT INTO ${schema}.hash_fields AS h (key, field, value, writer_group)
    SELECT p_key, u.field, u.value, p_group FROM unnest(p_fields, p_values) AS u(field, value)
    ON CONFLICT (key, field) DO UPDATE SET value = excluded.value, writer_group = excluded.writer_group
      WHERE h.value IS DISTINCT FROM excluded.value OR h.writer_group IS DISTINCT FROM excluded.writer_group;
  IF NOT EXISTS (SELECT 1 FROM ${schema}.hash_fields h WHERE h.key = p_key) THEN
    DELETE FROM ${schema}.keys k WHERE k.key = p_key;
  END IF;

  INSERT INTO ${schema}.epochs AS e (hash_key, epoch) VALUES (p_key, 1)
    ON CONFLICT (hash_key) DO UPDATE SET epoch = e.epoch + 1
    RETURNING e.epoch INTO o_epoch;
  PERFORM pg_notify(p_channel, p_payload || o_epoch);
END
$$;

-- ---------------------------------------------------------------- membership

-- A new session from the pool counter, the registration (superseding any previous session of p_id) with a lease
-- of p_ttl_ms and the attributes p_attributes (MemberMeta.encodeAttributes()), LPUSH p_id into the services list
-- p_pool if absent (WRONGTYPE rolls everything back), NOTIFY.
CREATE OR REPLACE FUNCTION ${schema}.register(
    p_pool text, p_id text, p_affinity integer, p_capacity integer, p_ttl_ms bigint, p_channel text, p_payload text,
    p_attributes text DEFAULT '')
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_session bigint;
BEGIN
  INSERT INTO ${schema}.pools AS p (pool, last_counter) VALUES (p_pool, ${schema}.clock_micros() + 1)
    ON CONFLICT (pool) DO UPDATE SET last_counter = p.last_counter + 1
    RETURNING p.last_counter INTO v_session;
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

-- If p_session is p_id's recorded session (live or not): deletes the registration, LREMs p_id from the services
-- list, NOTIFYs. Units it owned stay recorded but are claimable. WRONGTYPE if p_pool holds a hash. Locks the member
-- row before the list's row, like register.
CREATE OR REPLACE FUNCTION ${schema}.deregister(p_pool text, p_id text, p_session bigint, p_channel text,
    p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_kind text;
BEGIN
  SELECT k.kind INTO v_kind FROM ${schema}.keys k WHERE k.key = p_pool;
  PERFORM ${schema}.check_kind(p_pool, v_kind, 'list');
  DELETE FROM ${schema}.members m WHERE m.pool = p_pool AND m.id = p_id AND m.session = p_session;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM ${schema}.remove_from_list(p_pool, p_id);
  PERFORM pg_notify(p_channel, p_payload);
  RETURN true;
END
$$;

-- ---------------------------------------------------------------- ownership

-- Under the pool's row lock: refused (null) unless (p_member, p_session) is current and live; the same session
-- already owning the unit gets its token again; a unit owned by another live current session is refused;
-- otherwise a new token from the pool counter is recorded and returned.
--
-- The owner's lease is read with its member row locked FOR SHARE: under READ COMMITTED a plain read sees the last
-- committed lease, so a renewal whose UPDATE already qualified (the lease was live) but has not committed yet (a
-- slow WAL flush) would be invisible, and a claim just after the old expiry would take the unit although the
-- renewal then succeeds and the owner keeps running it. The lock makes the claim wait for that renewal and read
-- the lease it committed.
CREATE OR REPLACE FUNCTION ${schema}.claim(p_pool text, p_unit text, p_member text, p_session bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_member  text;
  v_session bigint;
  v_token   bigint;
  v_until   timestamptz;
BEGIN
  PERFORM 1 FROM ${schema}.pools p WHERE p.pool = p_pool FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL; -- nobody ever registered in this pool
  END IF;
  IF NOT EXISTS (SELECT 1 FROM ${schema}.members m
                 WHERE m.pool = p_pool AND m.id = p_member AND m.session = p_session
                   AND m.lease_until > clock_timestamp()) THEN
    RETURN NULL;
  END IF;
  SELECT o.member, o.session, o.token INTO v_member, v_session, v_token
    FROM ${schema}.ownership o WHERE o.pool = p_pool AND o.unit = p_unit FOR UPDATE;
  IF FOUND THEN
    IF v_member = p_member AND v_session = p_session THEN
      RETURN v_token;
    END IF;
    -- lock by key only, then test the lease on the row as locked: a row whose snapshot version fails a WHERE
    -- condition would be skipped without waiting for the update in flight
    SELECT m.lease_until INTO v_until FROM ${schema}.members m
      WHERE m.pool = p_pool AND m.id = v_member AND m.session = v_session
      FOR SHARE;
    IF FOUND AND v_until > clock_timestamp() THEN
      RETURN NULL; -- owned by a live session
    END IF;
  END IF;
  UPDATE ${schema}.pools p SET last_counter = p.last_counter + 1 WHERE p.pool = p_pool
    RETURNING p.last_counter INTO v_token;
  INSERT INTO ${schema}.ownership AS o (pool, unit, member, session, token)
    VALUES (p_pool, p_unit, p_member, p_session, v_token)
    ON CONFLICT (pool, unit) DO UPDATE
      SET member = excluded.member, session = excluded.session, token = excluded.token;
  RETURN v_token;
END
$$;

-- claim() for each unit, in one round trip and one transaction; the result has one element per unit, in order:
-- the fencing token, or null if refused. Every claim locks the pool row first, so batches cannot deadlock.
CREATE OR REPLACE FUNCTION ${schema}.claim_all(p_pool text, p_units text[], p_member text, p_session bigint)
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  v_out  bigint[] := '{}';
  v_unit text;
BEGIN
  FOREACH v_unit IN ARRAY p_units LOOP
    v_out := array_append(v_out, ${schema}.claim(p_pool, v_unit, p_member, p_session));
  END LOOP;
  RETURN v_out;
END
$$;

-- Compare-and-delete on (member, token), then NOTIFY; true if released.
CREATE OR REPLACE FUNCTION ${schema}.release_unit(
    p_pool text, p_unit text, p_member text, p_token bigint, p_channel text, p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ${schema}.ownership o
    WHERE o.pool = p_pool AND o.unit = p_unit AND o.member = p_member AND o.token = p_token;
  RETURN ${schema}.notify_if(FOUND, p_channel, p_payload);
END
$$;

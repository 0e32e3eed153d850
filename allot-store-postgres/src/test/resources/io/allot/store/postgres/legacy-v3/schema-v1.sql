-- allot PostgreSQL store, schema version 1.
-- ${schema} is replaced by the quoted schema name; the migration runs in one transaction under
-- pg_advisory_xact_lock (see SchemaMigrator). Every time is the server's clock_timestamp() (store time).
-- Every multi-step operation is one function call = one statement = one transaction and one round trip, so no
-- lock is ever held while waiting for a client.
--
-- Row lock order (no cycles, so no deadlocks): leases -> keys -> epochs (publish); pools -> members -> keys
-- (register); members -> keys (deregister); pools -> ownership (claim); members alone (renew, update member);
-- ownership alone (release unit); keys alone (list operations).

-- ---------------------------------------------------------------- seed-compatible lists and hashes

-- One row per existing list or hash (Redis keyspace: a key holds one type; an empty list or hash does not exist).
CREATE TABLE ${schema}.keys (
  key  text COLLATE "C" PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('list', 'hash'))
);

-- List items, head first = ascending pos. LPUSH takes min(pos) - 1; replaceList numbers 1..n.
CREATE TABLE ${schema}.list_items (
  key   text COLLATE "C" NOT NULL,
  pos   bigint NOT NULL,
  value text COLLATE "C" NOT NULL,
  PRIMARY KEY (key, pos)
);
CREATE INDEX list_items_by_value ON ${schema}.list_items (key, value);

-- Hash fields. writer_group = the publish group that wrote the field last (it owns the field); null if written
-- otherwise. A group's publish deletes only the fields it still owns.
CREATE TABLE ${schema}.hash_fields (
  key          text COLLATE "C" NOT NULL,
  field        text COLLATE "C" NOT NULL,
  value        text NOT NULL,
  writer_group text COLLATE "C",
  PRIMARY KEY (key, field)
);
CREATE INDEX hash_fields_by_group ON ${schema}.hash_fields (key, writer_group);

-- Epoch of each distribution hash (kept when the hash becomes empty).
CREATE TABLE ${schema}.epochs (
  hash_key text COLLATE "C" PRIMARY KEY,
  epoch    bigint NOT NULL
);

-- ---------------------------------------------------------------- leases

-- One row per lease name, kept forever: last_token only grows. holder null = released.
-- Held = holder is not null and expires_at > clock_timestamp().
CREATE TABLE ${schema}.leases (
  name       text COLLATE "C" PRIMARY KEY,
  last_token bigint NOT NULL,
  holder     text COLLATE "C",
  expires_at timestamptz
);

-- ---------------------------------------------------------------- membership and ownership

-- One row per pool (services list key): the last session number or unit token issued (one counter for both).
-- Its row lock serializes the pool's claims and registrations.
CREATE TABLE ${schema}.pools (
  pool         text COLLATE "C" PRIMARY KEY,
  last_counter bigint NOT NULL
);

-- Registrations, including expired ones (live = lease_until > clock_timestamp()).
CREATE TABLE ${schema}.members (
  pool        text COLLATE "C" NOT NULL,
  id          text COLLATE "C" NOT NULL,
  affinity    integer NOT NULL CHECK (affinity >= 0),
  capacity    integer NOT NULL CHECK (capacity >= 0),
  session     bigint NOT NULL,
  lease_until timestamptz NOT NULL,
  PRIMARY KEY (pool, id)
);

-- Unit ownership; a row whose owner is no longer current or live is claimable.
CREATE TABLE ${schema}.ownership (
  pool    text COLLATE "C" NOT NULL,
  unit    text COLLATE "C" NOT NULL,
  member  text COLLATE "C" NOT NULL,
  session bigint NOT NULL,
  token   bigint NOT NULL,
  PRIMARY KEY (pool, unit)
);

-- ---------------------------------------------------------------- helpers

-- The store clock in microseconds since the epoch: seeds token counters so they keep increasing after data loss.
CREATE FUNCTION ${schema}.clock_micros() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint
$$;

-- Locks the row of key p_key, which must hold a list (SQLSTATE AL001 = WRONGTYPE otherwise). With p_create the
-- row is created if missing; without, returns false if the key does not exist.
CREATE FUNCTION ${schema}.lock_list(p_key text, p_create boolean) RETURNS boolean LANGUAGE plpgsql AS $$
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
  IF v_kind <> 'list' THEN
    RAISE EXCEPTION 'WRONGTYPE: key % holds a %, not a list', quote_literal(p_key), v_kind USING ERRCODE = 'AL001';
  END IF;
  RETURN true;
END
$$;

-- ---------------------------------------------------------------- lists

-- LPUSH p_value only if absent; true if added.
CREATE FUNCTION ${schema}.add_to_list(p_key text, p_value text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ${schema}.lock_list(p_key, true);
  IF EXISTS (SELECT 1 FROM ${schema}.list_items i WHERE i.key = p_key AND i.value = p_value) THEN
    RETURN false;
  END IF;
  INSERT INTO ${schema}.list_items (key, pos, value)
    SELECT p_key, coalesce(min(i.pos), 0) - 1, p_value FROM ${schema}.list_items i WHERE i.key = p_key;
  RETURN true;
END
$$;

-- LREM key 0 value; true if at least one was removed. An emptied list stops existing.
CREATE FUNCTION ${schema}.remove_from_list(p_key text, p_value text) RETURNS boolean LANGUAGE plpgsql AS $$
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
  RETURN v_removed > 0;
END
$$;

-- DEL key + RPUSH values (head first): replaces whatever the key held; an empty array deletes it.
CREATE FUNCTION ${schema}.replace_list(p_key text, p_values text[]) RETURNS void LANGUAGE plpgsql AS $$
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
END
$$;

-- ---------------------------------------------------------------- fenced publication

-- If (p_holder, p_token) is the live holder of lease p_lease (its row locked FOR UPDATE until commit, so nobody can
-- take the lease over meanwhile): upserts the fields (owned by p_group from now on), deletes the fields p_group
-- still owns that are not in p_fields, increments the epoch and NOTIFYs p_channel with p_payload || epoch.
-- Returns o_epoch; o_epoch null = fenced (nothing changed), with the current live holder, if any, in
-- (o_holder, o_token).
CREATE FUNCTION ${schema}.publish(
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
  IF v_kind <> 'hash' THEN
    RAISE EXCEPTION 'WRONGTYPE: key % holds a %, not a hash', quote_literal(p_key), v_kind USING ERRCODE = 'AL001';
  END IF;

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
-- of p_ttl_ms, LPUSH p_id into the services list p_pool if absent (WRONGTYPE rolls everything back), NOTIFY.
CREATE FUNCTION ${schema}.register(
    p_pool text, p_id text, p_affinity integer, p_capacity integer, p_ttl_ms bigint, p_channel text, p_payload text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_session bigint;
BEGIN
  INSERT INTO ${schema}.pools AS p (pool, last_counter) VALUES (p_pool, ${schema}.clock_micros() + 1)
    ON CONFLICT (pool) DO UPDATE SET last_counter = p.last_counter + 1
    RETURNING p.last_counter INTO v_session;
  INSERT INTO ${schema}.members AS m (pool, id, affinity, capacity, session, lease_until)
    VALUES (p_pool, p_id, p_affinity, p_capacity, v_session, clock_timestamp() + p_ttl_ms * interval '1 millisecond')
    ON CONFLICT (pool, id) DO UPDATE
      SET affinity = excluded.affinity, capacity = excluded.capacity, session = excluded.session,
          lease_until = excluded.lease_until;
  PERFORM ${schema}.add_to_list(p_pool, p_id);
  PERFORM pg_notify(p_channel, p_payload);
  RETURN v_session;
END
$$;

-- Changes affinity and capacity of a live current session (lease unchanged) and NOTIFYs; false otherwise.
CREATE FUNCTION ${schema}.update_member(
    p_pool text, p_id text, p_session bigint, p_affinity integer, p_capacity integer, p_channel text,
    p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ${schema}.members m SET affinity = p_affinity, capacity = p_capacity
    WHERE m.pool = p_pool AND m.id = p_id AND m.session = p_session AND m.lease_until > clock_timestamp();
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM pg_notify(p_channel, p_payload);
  RETURN true;
END
$$;

-- If p_session is p_id's recorded session (live or not): deletes the registration, LREMs p_id from the services
-- list, NOTIFYs. Units it owned stay recorded but are claimable. WRONGTYPE if p_pool holds a hash. Locks the member
-- row before the list's row, like register.
CREATE FUNCTION ${schema}.deregister(p_pool text, p_id text, p_session bigint, p_channel text, p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_kind text;
BEGIN
  SELECT k.kind INTO v_kind FROM ${schema}.keys k WHERE k.key = p_pool;
  IF v_kind IS DISTINCT FROM 'list' AND v_kind IS NOT NULL THEN
    RAISE EXCEPTION 'WRONGTYPE: key % holds a %, not a list', quote_literal(p_pool), v_kind USING ERRCODE = 'AL001';
  END IF;
  DELETE FROM ${schema}.members m WHERE m.pool = p_pool AND m.id = p_id AND m.session = p_session;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF ${schema}.lock_list(p_pool, false) THEN
    DELETE FROM ${schema}.list_items i WHERE i.key = p_pool AND i.value = p_id;
    IF NOT EXISTS (SELECT 1 FROM ${schema}.list_items i WHERE i.key = p_pool) THEN
      DELETE FROM ${schema}.keys k WHERE k.key = p_pool;
    END IF;
  END IF;
  PERFORM pg_notify(p_channel, p_payload);
  RETURN true;
END
$$;

-- ---------------------------------------------------------------- ownership

-- Under the pool's row lock: refused (null) unless (p_member, p_session) is current and live; the same session
-- already owning the unit gets its token again; a unit owned by another live current session is refused;
-- otherwise a new token from the pool counter is recorded and returned.
CREATE FUNCTION ${schema}.claim(p_pool text, p_unit text, p_member text, p_session bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_member  text;
  v_session bigint;
  v_token   bigint;
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
    IF EXISTS (SELECT 1 FROM ${schema}.members m
               WHERE m.pool = p_pool AND m.id = v_member AND m.session = v_session
                 AND m.lease_until > clock_timestamp()) THEN
      RETURN NULL;
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

-- Compare-and-delete on (member, token), then NOTIFY; true if released.
CREATE FUNCTION ${schema}.release_unit(
    p_pool text, p_unit text, p_member text, p_token bigint, p_channel text, p_payload text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ${schema}.ownership o
    WHERE o.pool = p_pool AND o.unit = p_unit AND o.member = p_member AND o.token = p_token;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM pg_notify(p_channel, p_payload);
  RETURN true;
END
$$;

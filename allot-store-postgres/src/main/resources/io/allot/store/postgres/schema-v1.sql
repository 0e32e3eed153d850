-- allot PostgreSQL store, schema version 1: tables and indexes.
-- ${schema} is replaced by the quoted schema name; the migration runs in one transaction under
-- pg_advisory_xact_lock (see SchemaMigrator). The functions that keep these tables consistent are in functions.sql
-- (numbered migrations hold only tables, columns and indexes; releases up to schema version 3 created the
-- functions here, and a database they created is brought to the same state by functions.sql).

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

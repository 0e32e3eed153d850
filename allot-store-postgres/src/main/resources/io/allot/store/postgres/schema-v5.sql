-- allot PostgreSQL schema, version 5: the lost-state guard of each pool, and unit holds.

-- The pool's lost-state guard (functions.sql, lock_pool): the incarnation of the server that stamped it
-- (system_identifier:timeline[:postmaster start], see incarnation()) and until when claims in the pool wait. Rows of
-- earlier versions have none (null): the pool's first operation after the upgrade waits the guard once, as after a
-- partial loss, since nothing says the state was kept. Nullable without default: adding them rewrites nothing.
ALTER TABLE ${schema}.pools ADD COLUMN guard_incarnation text, ADD COLUMN guard_not_before timestamptz;

-- Units released with a hold (Ownership.release(unit, member, token, hold)): member declines unit until then (store
-- time). At most one per unit, the latest; rows whose time has run out are deleted by the next read of the pool's
-- holds.
CREATE TABLE ${schema}.holds (
  pool   text COLLATE "C" NOT NULL,
  unit   text COLLATE "C" NOT NULL,
  member text COLLATE "C" NOT NULL,
  until  timestamptz NOT NULL,
  PRIMARY KEY (pool, unit)
);

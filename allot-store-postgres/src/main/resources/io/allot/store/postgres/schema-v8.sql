-- allot PostgreSQL schema, version 8: long-running task specs (TaskSpecs).

-- One row per spec of a pool, live or tombstone (deleted_at set); SQL users may read it. Times are store time
-- (clock_timestamp()), but fault_at_ms, the worker's clock in epoch ms as it reported it. The run (the last confirmed
-- start) and the fault (the running handler's failures) are each all set or all null, and a fault needs a run.
CREATE TABLE ${schema}.task_specs (
  pool           text COLLATE "C" NOT NULL,
  name           text COLLATE "C" NOT NULL,
  args           text NOT NULL,
  cost           integer NOT NULL CHECK (cost >= 1),
  revision       bigint NOT NULL CHECK (revision >= 1),
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  deleted_at     timestamptz,
  run_member     text,
  run_token      bigint,
  run_revision   bigint,
  run_started_at timestamptz,
  fault_failures integer,
  fault_failing  boolean,
  fault_error    text,
  fault_at_ms    bigint,
  PRIMARY KEY (pool, name),
  CHECK (num_nulls(run_member, run_token, run_revision, run_started_at) IN (0, 4)),
  CHECK (num_nulls(fault_failures, fault_failing, fault_error, fault_at_ms) IN (0, 4)),
  CHECK (fault_failures IS NULL OR run_token IS NOT NULL)
);

-- Each pool's spec version (TaskSpecs.version()): bumped in the transaction of every change of the pool's specs. A
-- table of its own, not a column of pools: spec writes then never wait on the row that registrations and claims
-- lock.
CREATE TABLE ${schema}.task_spec_versions (
  pool    text COLLATE "C" PRIMARY KEY,
  version bigint NOT NULL
);

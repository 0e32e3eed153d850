-- allot PostgreSQL schema, version 7: finite tasks (TaskQueue).

-- One row per task; SQL users may read it (status codes: 0 todo, 20 failed, 30 processing, 50 finished, 70 ignored).
-- due_at: when a todo/failed task may run (its next attempt), or when a processing task's lock expires.
CREATE TABLE ${schema}.tasks (
  queue        text COLLATE "C" NOT NULL,
  key          text COLLATE "C" NOT NULL,
  status       smallint NOT NULL DEFAULT 0 CHECK (status IN (0, 20, 30, 50, 70)),
  data         text NOT NULL DEFAULT '',
  priority     integer NOT NULL DEFAULT 0,
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  due_at       timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  lock_token   bigint NOT NULL DEFAULT 0,
  locked_by    text NOT NULL DEFAULT '',
  last_error   text NOT NULL DEFAULT '',
  PRIMARY KEY (queue, key),
  CHECK (attempts <= max_attempts)
);

-- The claim's index: open tasks of a queue in claim order, key included so a claim needs no sort (final tasks
-- leave it).
CREATE INDEX tasks_runnable ON ${schema}.tasks (queue, priority DESC, due_at, key) WHERE status < 50;
-- Recent failures for stats, and purging old final tasks.
CREATE INDEX tasks_updated ON ${schema}.tasks (queue, status, updated_at);

-- A queue's rate limit: a token bucket refilled at rate per second, holding at most max(1, rate) permits.
CREATE TABLE ${schema}.task_queues (
  queue       text COLLATE "C" PRIMARY KEY,
  rate        double precision NOT NULL DEFAULT 0,
  permits     double precision NOT NULL DEFAULT 0,
  refilled_at timestamptz NOT NULL
);

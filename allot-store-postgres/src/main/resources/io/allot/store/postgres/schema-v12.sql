-- allot PostgreSQL schema, version 12: the event history (io.allot.store.events.Events). events holds what the
-- components saw, one row per event (pool NULL: store-wide); event_ids is one row whose lock serializes the appends
-- (so ids become visible in order) and whose value is the last id given (append_event in functions.sql).
CREATE TABLE ${schema}.events (
  id      bigint PRIMARY KEY,
  at_ms   bigint NOT NULL,
  pool    text COLLATE "C" CHECK (pool <> ''),
  kind    text COLLATE "C" NOT NULL,
  actor   text NOT NULL,
  subject text,
  detail  text NOT NULL
);

CREATE INDEX events_pool_id ON ${schema}.events (pool, id);
CREATE INDEX events_at_ms ON ${schema}.events (at_ms);

CREATE TABLE ${schema}.event_ids (
  one  boolean PRIMARY KEY DEFAULT true CHECK (one),
  last bigint NOT NULL
);

INSERT INTO ${schema}.event_ids (one, last) VALUES (true, 0);

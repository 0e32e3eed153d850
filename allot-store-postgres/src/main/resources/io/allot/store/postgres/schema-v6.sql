-- allot PostgreSQL schema, version 6: publication marks (incremental table publication).

-- The epoch of each group's last publication into a hash: PgTables then publishes only the difference to it
-- (functions.sql, publish_changes), which applies only while the mark is that epoch. A group's mark is deleted when
-- another group overwrites one of its fields; no mark means the group's next publication is a full one.
CREATE TABLE ${schema}.publish_marks (
  hash_key text COLLATE "C" NOT NULL,
  grp      text COLLATE "C" NOT NULL,
  epoch    bigint NOT NULL,
  PRIMARY KEY (hash_key, grp)
);

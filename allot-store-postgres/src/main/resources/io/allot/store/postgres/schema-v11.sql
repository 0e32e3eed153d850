-- allot PostgreSQL schema, version 11: the live routing weights get a role of their own (io.allot.store.RouteWeights):
-- route_weights holds each pool's weights (canary version -> weight), route_weight_revisions the revision of the
-- pool's last set (its row lock serializes the sets of the pool; set_route_weights in functions.sql).
CREATE TABLE ${schema}.route_weights (
  pool    text COLLATE "C" NOT NULL,
  version text COLLATE "C" NOT NULL CHECK (version <> ''),
  weight  integer NOT NULL CHECK (weight BETWEEN 0 AND 1000000),
  PRIMARY KEY (pool, version)
);

CREATE TABLE ${schema}.route_weight_revisions (
  pool     text COLLATE "C" PRIMARY KEY,
  revision bigint NOT NULL
);

-- Earlier releases kept a pool's weights as the table 'allot-route:<pool>' (hash fields version -> weight, epoch in
-- epochs): copied here, the fields that are not a weight skipped as those releases skipped them on reading; the
-- revision goes on from the table's epoch. The old table is left as it was (a process of the earlier release still
-- running reads it) and is no longer read.
INSERT INTO ${schema}.route_weights (pool, version, weight)
SELECT substr(h.key, 13), h.field, h.value::integer
  FROM ${schema}.hash_fields h
 WHERE h.key LIKE 'allot-route:_%' AND h.field <> '' AND h.value ~ '^[0-9]{1,7}$' AND h.value::integer <= 1000000;

INSERT INTO ${schema}.route_weight_revisions (pool, revision)
SELECT substr(e.hash_key, 13), e.epoch
  FROM ${schema}.epochs e
 WHERE e.hash_key LIKE 'allot-route:_%';

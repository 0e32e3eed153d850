-- allot PostgreSQL schema, version 10: no table changes. It marks functions.sql's claim_jobs that reads the rate
-- limit bucket's time only once the bucket's row is locked (and never writes an older refill time back), so that a
-- release with the fix never sees its functions replaced by an older release's on the same schema version.
SELECT 1;

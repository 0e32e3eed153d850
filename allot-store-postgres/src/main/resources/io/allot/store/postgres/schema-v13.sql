-- allot PostgreSQL schema, version 13: no table changes. claim_jobs also returns each job's due time before the
-- claim (ClaimedJob.dueAtMillis, the queue wait); a function's result columns cannot be replaced in place, so the old
-- one is dropped here and functions.sql creates the new one. The version also keeps an older release from putting
-- its claim_jobs back on this schema.
DROP FUNCTION IF EXISTS ${schema}.claim_jobs(text, text, integer, bigint, bigint);

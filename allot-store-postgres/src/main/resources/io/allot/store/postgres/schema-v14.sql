-- allot PostgreSQL schema, version 14: no table changes. claim_jobs also says when the queue's rate limit cut the
-- claim short (a last row with t_key NULL and t_rate_limited true: ClaimedJobs.rateLimited, the metric
-- allot_jobs_rate_limited_total); a function's result columns cannot be replaced in place, so the old one is
-- dropped here and functions.sql creates the new one. The version also keeps an older release from putting its
-- claim_jobs back on this schema.
DROP FUNCTION IF EXISTS ${schema}.claim_jobs(text, text, integer, bigint, bigint);

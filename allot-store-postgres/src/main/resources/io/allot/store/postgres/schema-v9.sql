-- allot PostgreSQL schema, version 9: "job" names finite queued work (it was "task", which now means only
-- long-running work): the tables of version 7 are renamed, their rows kept; the functions that used the old names are
-- dropped (functions.sql creates claim_jobs and limit_job_rate).
ALTER TABLE ${schema}.tasks RENAME TO jobs;
ALTER INDEX ${schema}.tasks_pkey RENAME TO jobs_pkey;
ALTER INDEX ${schema}.tasks_runnable RENAME TO jobs_runnable;
ALTER INDEX ${schema}.tasks_updated RENAME TO jobs_updated;
ALTER TABLE ${schema}.jobs RENAME CONSTRAINT tasks_status_check TO jobs_status_check;
ALTER TABLE ${schema}.jobs RENAME CONSTRAINT tasks_max_attempts_check TO jobs_max_attempts_check;
ALTER TABLE ${schema}.jobs RENAME CONSTRAINT tasks_check TO jobs_check;
ALTER TABLE ${schema}.task_queues RENAME TO job_queues;
ALTER INDEX ${schema}.task_queues_pkey RENAME TO job_queues_pkey;
DROP FUNCTION IF EXISTS ${schema}.claim_tasks(text, text, integer, bigint, bigint);
DROP FUNCTION IF EXISTS ${schema}.limit_task_rate(text, double precision);

/**
 * Jobs (finite queued work) over a store's {@link io.allot.store.jobs.JobQueue}, in two modes that run the same
 * {@link io.allot.jobs.JobHandler} with the same {@link io.allot.jobs.JobContext} and tell the same
 * {@link io.allot.jobs.AttemptListener}: a {@link io.allot.jobs.JobWorker} claims from the store itself; a
 * leader-elected {@link io.allot.jobs.JobDispatcher} claims and pushes jobs over gRPC to endpoints that cannot reach
 * the store (any language: the contract is {@code allot/jobs/v1/jobs.proto}, generated into {@code io.allot.jobs.v1};
 * {@link io.allot.jobs.JobEndpoint} is the Java one), whose results come back on the same stream and are completed in
 * the store with each job's fencing token. Inside, both clients are built from the same package-private parts (the
 * lock keeper, the attempt reporter); see the module's README.
 */
package io.allot.jobs;

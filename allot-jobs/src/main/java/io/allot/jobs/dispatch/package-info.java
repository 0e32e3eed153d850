/**
 * Dispatcher mode for jobs: one leader-elected {@link io.allot.jobs.dispatch.JobDispatcher} claims jobs
 * from the store and pushes them over gRPC to worker endpoints that cannot reach the store (any language: the
 * contract is {@code allot/jobs/v1/jobs.proto}, generated into {@code io.allot.jobs.v1}); results
 * come back on the same stream and are completed in the store with each job's fencing token.
 * {@link io.allot.jobs.dispatch.JobEndpoint} is the endpoint side in Java.
 */
package io.allot.jobs.dispatch;

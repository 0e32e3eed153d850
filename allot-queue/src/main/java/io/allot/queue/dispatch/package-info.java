/**
 * Dispatcher mode for finite tasks: one leader-elected {@link io.allot.queue.dispatch.TaskDispatcher} claims tasks
 * from the store and pushes them over gRPC to worker endpoints that cannot reach the store (any language: the
 * contract is {@code allot/queue/v1/dispatch.proto}, generated into {@code io.allot.queue.dispatch.proto}); results
 * come back on the same stream and are completed in the store with each task's fencing token.
 * {@link io.allot.queue.dispatch.TaskEndpoint} is the endpoint side in Java.
 */
package io.allot.queue.dispatch;

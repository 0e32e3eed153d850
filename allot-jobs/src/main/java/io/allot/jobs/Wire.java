package io.allot.jobs;

import io.allot.jobs.v1.Cancel;
import io.allot.jobs.v1.DispatcherMessage;
import io.allot.jobs.v1.EndpointMessage;
import io.allot.jobs.v1.Heartbeat;
import io.allot.jobs.v1.Hello;
import io.allot.jobs.v1.Job;
import io.allot.jobs.v1.Ready;
import io.allot.jobs.v1.Result;
import io.allot.jobs.v1.Verdict;
import io.allot.store.jobs.ClaimedJob;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The messages of {@code allot/jobs/v1/jobs.proto}, made and read in one place for both ends, with the one mapping
 * between {@link AttemptOutcome} and the wire's outcome ({@link AttemptOutcome#UNKNOWN} is
 * {@code OUTCOME_UNSPECIFIED}). Stateless.
 */
final class Wire {
  private Wire() {}

  static DispatcherMessage hello(String dispatcher, String queue, long leaseToken, Duration heartbeat) {
    return DispatcherMessage.newBuilder().setHello(Hello.newBuilder().setDispatcher(dispatcher).setQueue(queue)
        .setLeaseToken(leaseToken).setHeartbeatMs(heartbeat.toMillis())).build();
  }

  /** A job; {@code stopAfterMillis} is the endpoint's deadline for it ({@link #stopAfterMillis}). */
  static DispatcherMessage job(ClaimedJob j, Duration lockTtl, long stopAfterMillis) {
    return DispatcherMessage.newBuilder().setJob(Job.newBuilder().setKey(j.key()).setToken(j.token())
        .setData(j.data()).setAttempt(j.attempt()).setMaxAttempts(j.maxAttempts())
        .setLockTtlMs(lockTtl.toMillis()).setStopAfterMs(stopAfterMillis)).build();
  }

  static DispatcherMessage heartbeat(long stopAfterMillis) {
    return DispatcherMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setStopAfterMs(stopAfterMillis))
        .build();
  }

  /**
   * The endpoint's deadline, in ms from receipt, for locks surely kept {@code heldNanos} more from now: that less the
   * safety margin ({@link #stopMarginNanos}), at least 1 (a deadline of 0 would mean none).
   */
  static long stopAfterMillis(long heldNanos, Duration lockTtl) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(heldNanos - stopMarginNanos(lockTtl)));
  }

  /**
   * The time an endpoint is given to hear a message and stop its handlers before the lock can expire: a fifth of the
   * lock TTL (one message's transit, the endpoint's timer, the handlers' response to the interrupt).
   */
  static long stopMarginNanos(Duration lockTtl) {
    return lockTtl.toNanos() / 5;
  }

  static DispatcherMessage verdict(String key, long token, AttemptOutcome outcome) {
    return DispatcherMessage.newBuilder().setVerdict(Verdict.newBuilder().setKey(key).setToken(token)
        .setOutcome(toWire(outcome))).build();
  }

  static DispatcherMessage cancel(String key, long token, String reason) {
    return DispatcherMessage.newBuilder().setCancel(Cancel.newBuilder().setKey(key).setToken(token)
        .setReason(reason)).build();
  }

  static EndpointMessage ready(String endpoint, int capacity) {
    return EndpointMessage.newBuilder().setReady(Ready.newBuilder().setEndpoint(endpoint).setCapacity(capacity))
        .build();
  }

  /** A result: {@code error} null on success; {@code retryAfter} null for the dispatcher's backoff. */
  static EndpointMessage result(String key, long token, String error, Duration retryAfter) {
    Result.Builder b = Result.newBuilder().setKey(key).setToken(token);
    if (error != null) {
      b.setError(error.isEmpty() ? "failed" : error);
      if (retryAfter != null) {
        b.setRetryAfterMs(Math.max(1, retryAfter.toMillis()));
      }
    }
    return EndpointMessage.newBuilder().setResult(b).build();
  }

  /** The failure a result reports, or null on success. */
  static String error(Result r) {
    return r.getError().isEmpty() ? null : r.getError();
  }

  /** The most credits one stream may announce (two endpoints at Integer.MAX_VALUE overflowed the sum). */
  static final int MAX_CAPACITY = 10_000;

  /**
   * What is wrong with a Ready from an endpoint, or null if nothing: its capacity must be 0 to {@link #MAX_CAPACITY}.
   */
  static String badReady(Ready r) {
    int c = r.getCapacity();
    return c < 0 || c > MAX_CAPACITY ? "Ready.capacity must be between 0 and " + MAX_CAPACITY + " but was " + c : null;
  }

  /**
   * What is wrong with a Result from an endpoint, or null if nothing: its retry_after_ms must be 0 (the backoff) to
   * {@link JobHandler.RetryAfter#MAX_WAIT} (a wait of a hundred years parked the job on Redis and overflowed elsewhere).
   */
  static String badResult(Result r) {
    long ms = r.getRetryAfterMs();
    long max = JobHandler.RetryAfter.MAX_WAIT.toMillis();
    return ms < 0 || ms > max
        ? "Result.retry_after_ms of job '" + r.getKey() + "' must be between 0 and " + max + " but was " + ms : null;
  }

  /** The wait a failed result asks for, or null for the backoff. */
  static Duration retryAfter(Result r) {
    return r.getRetryAfterMs() > 0 ? Duration.ofMillis(r.getRetryAfterMs()) : null;
  }

  /** A pushed job as the endpoint's handler sees it (the lock's expiry in store time is not sent: 0). */
  static ClaimedJob claimed(Job j) {
    return new ClaimedJob(j.getKey(), j.getData(), j.getToken(), j.getAttempt(), j.getMaxAttempts(), 0);
  }

  static io.allot.jobs.v1.JobOutcome toWire(AttemptOutcome o) {
    return switch (o) {
      case FINISHED -> io.allot.jobs.v1.JobOutcome.FINISHED;
      case RETRY_SCHEDULED -> io.allot.jobs.v1.JobOutcome.RETRY_SCHEDULED;
      case IGNORED -> io.allot.jobs.v1.JobOutcome.IGNORED;
      case REJECTED -> io.allot.jobs.v1.JobOutcome.REJECTED;
      case UNKNOWN -> io.allot.jobs.v1.JobOutcome.OUTCOME_UNSPECIFIED;
    };
  }

  static AttemptOutcome fromWire(io.allot.jobs.v1.JobOutcome o) {
    return switch (o) {
      case FINISHED -> AttemptOutcome.FINISHED;
      case RETRY_SCHEDULED -> AttemptOutcome.RETRY_SCHEDULED;
      case IGNORED -> AttemptOutcome.IGNORED;
      case REJECTED -> AttemptOutcome.REJECTED;
      default -> AttemptOutcome.UNKNOWN;
    };
  }
}

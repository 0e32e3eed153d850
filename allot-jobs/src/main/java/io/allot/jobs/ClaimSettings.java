package io.allot.jobs;

import io.allot.store.Durations;
import io.allot.store.jobs.JobLimits;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings a {@link JobWorker} and a {@link JobDispatcher} share: both claim jobs, hold their locks and report
 * each attempt's end ({@link AttemptReporter}). Each setter checks its value and names it when bad. Used by the one
 * thread that builds (no guard).
 *
 * @param <B> the builder, returned by each setter
 */
abstract class ClaimSettings<B extends ClaimSettings<B>> {
  Duration lockTtl = Duration.ofSeconds(30);
  Duration drainTimeout = Duration.ofSeconds(30);
  Backoff backoff = Backoff.DEFAULT;
  double rateLimit = -1;
  AttemptListener listener = end -> { };
  io.allot.store.events.EventWriter events; // null: no events
  MeterRegistry meters = new CompositeMeterRegistry();

  abstract B self();

  /**
   * How long a claimed job's lock lasts; extended while the job is held (a worker's job waits or runs, a dispatcher's
   * is outstanding on a live stream), when a third to a half of it has passed. 30 ms to 1 day, default 30 s.
   */
  public B lockTtl(Duration lockTtl) {
    this.lockTtl = timeout("lockTtl", lockTtl, 30);
    return self();
  }

  /**
   * How long {@code close()} waits for the attempts under way (a worker's running handlers, the results of jobs a
   * dispatcher already sent). 0 to 1 day, default 30 s.
   */
  public B drainTimeout(Duration drainTimeout) {
    this.drainTimeout = Durations.check("drainTimeout", drainTimeout, Duration.ZERO, Durations.MAX_TIMEOUT);
    return self();
  }

  /**
   * The wait before a failed job's next attempt, unless the handler asked for one ({@link JobHandler.RetryAfter}; an
   * endpoint's {@code retry_after_ms}). Default {@link Backoff#DEFAULT}.
   */
  public B backoff(Backoff backoff) {
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    return self();
  }

  /**
   * Sets the queue's rate limit at start (jobs per second over every claimer of the queue, kept in the store;
   * 0 removes it). Default: leave the queue's limit as it is.
   */
  public B rateLimit(double jobsPerSecond) {
    this.rateLimit = JobLimits.checkRate(jobsPerSecond);
    return self();
  }

  /**
   * Writes a {@code job-ignored} event to the history of {@code writer}'s store when an attempt ends with its job
   * ignored (its attempts used up): subject {@code <queue>/<key>}, actor where the attempt ran, the error in the
   * detail; on the writer's background thread, so completions never wait for it. Default: no events.
   */
  public B events(io.allot.store.events.EventWriter writer) {
    this.events = Objects.requireNonNull(writer, "writer");
    return self();
  }

  /** The listener the reporter tells: the events' first (a throwing listener cannot lose them), then the user's. */
  AttemptListener reported() {
    if (events == null) {
      return listener;
    }
    io.allot.store.events.JobEvents history = new io.allot.store.events.JobEvents(events);
    AttemptListener user = listener;
    return end -> {
      if (end.outcome() == AttemptOutcome.IGNORED) {
        history.exhausted(end.ranBy(), end.queue(), end.key(), end.attempt(), end.error().orElse(null));
      }
      user.ended(end);
    };
  }

  /** Told of each attempt's end, once the store answered (or its answer did not come in time). */
  public B listener(AttemptListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return self();
  }

  /**
   * Where the meters go (a worker's {@code allot.jobs.*}, a dispatcher's {@code allot.jobs.dispatch.*}, tagged with
   * the queue). Default: nowhere.
   */
  public B meterRegistry(MeterRegistry meters) {
    this.meters = Objects.requireNonNull(meters, "meters");
    return self();
  }

  /** {@code d}, checked: not null, {@code minMillis} to {@link Durations#MAX_TIMEOUT} (1 day). */
  static Duration timeout(String name, Duration d, long minMillis) {
    return Durations.check(name, d, Duration.ofMillis(minMillis), Durations.MAX_TIMEOUT);
  }
}

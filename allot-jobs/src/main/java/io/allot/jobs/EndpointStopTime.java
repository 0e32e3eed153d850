package io.allot.jobs;

import java.util.concurrent.TimeUnit;

/**
 * When a {@link JobEndpoint} that went silent has surely stopped every handler of one stream, on the dispatcher's
 * monotonic clock: the rule that lets a {@link JobDispatcher} hand a broken or silent stream's jobs to another
 * endpoint long before their locks expire, without two runs of one job at once.
 *
 * <p>The endpoint keeps one deadline per stream ({@code jobs.proto}, "Deadline"): a Heartbeat sets it to receipt +
 * {@code stop_after_ms}, a Job only brings it nearer, and when it passes the endpoint interrupts the stream's
 * handlers. So the latest deadline the endpoint can hold is the latest {@code send + stop_after_ms} of every such
 * message the dispatcher sent, plus three allowances, each of which this class adds:
 * <ol>
 *   <li><b>clock rate</b>: the endpoint counts {@code stop_after_ms} on its own clock, which may run slower than the
 *       dispatcher's: {@code stop_after_ms * (1 + driftRate)};</li>
 *   <li><b>reaction</b>: the message's transit (the endpoint counts from receipt, which is later than the send), its
 *       timer's lateness and the handlers' response to the interrupt: {@code reactionNanos};</li>
 *   <li><b>the latest message</b>: every deadline sent counts, not the last one only (a Job's deadline may lie past a
 *       later Heartbeat's when the lock TTL is short).</li>
 * </ol>
 * After {@link #stoppedByNanos()}, a silent endpoint no longer runs the stream's jobs, so they may run elsewhere.
 * (Dropping any allowance makes {@code EndpointStopTimeTest} fail.)
 *
 * <p>No threads, no clock of its own: the caller passes the send times. Not thread-safe: its owner guards it
 * ({@link EndpointStreams}' lock).
 */
final class EndpointStopTime {
  /** The default clock-rate allowance: 1 % (real clocks differ by parts per million; a VM's may by much more). */
  static final double DEFAULT_DRIFT_RATE = 0.01;

  private final long reactionNanos;
  private final double driftRate;
  /** The latest {@code send + stop_after * (1 + drift)} so far; valid once {@code any}. Guarded by the owner. */
  private long latestNanos;
  /** Guarded by the owner. */
  private boolean any;

  /**
   * @param reactionNanos the endpoint's reaction: one message's transit, its timer, its handlers' response
   * @param driftRate     how much slower the endpoint's clock may run, e.g. 0.01
   */
  EndpointStopTime(long reactionNanos, double driftRate) {
    if (reactionNanos < 0 || !(driftRate >= 0 && driftRate < 1)) {
      throw new IllegalArgumentException("reaction must be >= 0 and drift rate in [0, 1) but were " + reactionNanos
          + " ns and " + driftRate);
    }
    this.reactionNanos = reactionNanos;
    this.driftRate = driftRate;
  }

  /** A message carrying {@code stopAfterMillis} (a Heartbeat or a Job; 0 = none) was sent at {@code sentNanos}. */
  void sent(long sentNanos, long stopAfterMillis) {
    if (stopAfterMillis <= 0) {
      return;
    }
    long stretched = (long) Math.ceil(TimeUnit.MILLISECONDS.toNanos(stopAfterMillis) * (1 + driftRate));
    long at = sentNanos + stretched;
    if (!any || at - latestNanos > 0) {
      latestNanos = at;
      any = true;
    }
  }

  /** True once a deadline was sent: before that, the endpoint has none and may run on (its jobs wait for the lock). */
  boolean known() {
    return any;
  }

  /** The instant after which the endpoint has surely stopped the stream's handlers; only when {@link #known()}. */
  long stoppedByNanos() {
    if (!any) {
      throw new IllegalStateException("no deadline was sent on this stream");
    }
    return latestNanos + reactionNanos;
  }

  /** True if {@code nowNanos} is past {@link #stoppedByNanos()} (false while no deadline was sent). */
  boolean surelyStopped(long nowNanos) {
    return any && nowNanos - stoppedByNanos() > 0;
  }
}

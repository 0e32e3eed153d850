package io.allot.jobs;

/**
 * How many jobs a {@link JobWorker} keeps claimed beyond its running handlers (the prefetch) and how many it claims
 * at once, adapted to what it measures; no threads, no clock of its own (the worker passes the durations it timed).
 *
 * <p>Little's law: to keep its handlers busy, a worker needs {@code throughput × time a job holds its slot} slots,
 * and beyond the running jobs a job holds one while the claim that brings the next jobs is in flight and while its
 * own result is reported (a finish waits for the batch before it, then its own round trip). So the prefetch target is
 * {@code 2 × (concurrency / handler time) × (claim time + 2 × report time)}, the handler time, claim time and report
 * time being moving averages of what the worker timed: many short jobs give a large prefetch (up to the cap), so
 * claims carry large batches, one claim is in flight while the handlers run the jobs of the last, and finishes go
 * out in large {@code finishAll}s; long jobs give a prefetch of 1 (0 if the cap is 0), so few claimed jobs wait
 * (holding, and extending, their locks). Before the first handler ran, the prefetch is {@code min(cap,
 * concurrency)}. A prefetch the user set is kept as it is. It grows at most to twice its value (plus concurrency) per claim, so one odd sample does not claim
 * hundreds of jobs at once, and shrinks at once.
 *
 * <p>The worker claims when at least {@link #threshold()} slots are free (half the prefetch, at least 1), so a claim
 * carries a batch and the other half still waits for a handler while it is in flight; a claim asks for at most
 * {@link #maxBatch()}.
 *
 * <p>Thread-safe: every method is {@code synchronized} (handler threads report their run times, the reporter its
 * report times, the claim loop its claims); the fields are guarded by {@code this}.
 */
final class ClaimSizer {
  /** Weight of a new sample in the moving averages. */
  private static final double ALPHA = 0.2;
  /** A sample above this (a store outage, a paused JVM) counts as this much. */
  private static final long MAX_SAMPLE_NANOS = 1_000_000_000L;
  /** The shortest handler time counted: a no-op handler is not infinitely fast. */
  private static final double MIN_RUN_NANOS = 1_000;
  /** Slots per needed slot: room for the variance of the times. */
  private static final double HEADROOM = 2.0;

  private final int concurrency;
  private final int maxPrefetch;
  private final int maxBatch;
  /** False when the user set the prefetch: then it stays at {@code maxPrefetch}. */
  private final boolean adaptive;
  /** Moving averages in nanoseconds, NaN until the first sample; guarded by {@code this}. */
  private double runNanos = Double.NaN;
  private double claimNanos = Double.NaN;
  private double reportNanos = Double.NaN;
  /** The prefetch now; guarded by {@code this}. */
  private int prefetch;

  /**
   * @param concurrency handlers running at once
   * @param maxPrefetch the most claimed jobs waiting for a handler or for their report (the user's {@code prefetch},
   *                    or the default cap)
   * @param maxBatch    the most jobs in one claim (the user's {@code batchSize}, or the default cap)
   * @param adaptive    false for a prefetch the user set: it stays {@code maxPrefetch}
   */
  ClaimSizer(int concurrency, int maxPrefetch, int maxBatch, boolean adaptive) {
    if (concurrency < 1 || maxPrefetch < 0 || maxBatch < 1) {
      throw new IllegalArgumentException("concurrency " + concurrency + ", maxPrefetch " + maxPrefetch
          + ", maxBatch " + maxBatch);
    }
    this.concurrency = concurrency;
    this.maxPrefetch = maxPrefetch;
    this.maxBatch = maxBatch;
    this.adaptive = adaptive;
    this.prefetch = adaptive ? Math.min(maxPrefetch, concurrency) : maxPrefetch;
  }

  /** A handler ran for {@code nanos}. */
  synchronized void ran(long nanos) {
    runNanos = average(runNanos, nanos);
  }

  /** A report took {@code nanos} from the handler's end to the store's answer. */
  synchronized void reported(long nanos) {
    reportNanos = average(reportNanos, nanos);
  }

  /** A claim call took {@code nanos}; adapts the prefetch for the next claim. */
  synchronized void claimed(long nanos) {
    claimNanos = average(claimNanos, nanos);
    int target = target();
    prefetch = target < prefetch ? target : (int) Math.min(target, 2L * prefetch + concurrency);
  }

  /** The prefetch target from the averages (the current prefetch while no handler has run). */
  private int target() {
    if (!adaptive || Double.isNaN(runNanos) || maxPrefetch == 0) {
      return prefetch;
    }
    double perSecond = concurrency * 1e9 / Math.max(MIN_RUN_NANOS, runNanos);
    double cover = (nanOr0(claimNanos) + 2 * nanOr0(reportNanos)) / 1e9;
    double needed = Math.ceil(HEADROOM * perSecond * cover);
    return (int) Math.max(1, Math.min(maxPrefetch, needed));
  }

  /** Claimed jobs kept beyond the running ones, waiting for a handler or for their report. */
  synchronized int prefetch() {
    return prefetch;
  }

  /** Claim when at least this many slots are free: half the prefetch (at most a batch), at least 1. */
  synchronized int threshold() {
    return prefetch == 0 ? 1 : Math.max(1, Math.min(maxBatch, (prefetch + 1) / 2));
  }

  /** The most jobs in one claim. */
  int maxBatch() {
    return maxBatch;
  }

  /** False for a prefetch the user set. */
  boolean adaptive() {
    return adaptive;
  }

  /** The prefetch's cap. */
  int maxPrefetch() {
    return maxPrefetch;
  }

  private static double average(double avg, long sample) {
    double s = Math.min(Math.max(0, sample), MAX_SAMPLE_NANOS);
    return Double.isNaN(avg) ? s : avg + ALPHA * (s - avg);
  }

  private static double nanOr0(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  @Override
  public synchronized String toString() {
    return String.format(java.util.Locale.ROOT, "prefetch %d of %d, batch up to %d (run %.3f ms, claim %.3f ms, "
        + "report %.3f ms)", prefetch, maxPrefetch, maxBatch, runNanos / 1e6, claimNanos / 1e6, reportNanos / 1e6);
  }
}

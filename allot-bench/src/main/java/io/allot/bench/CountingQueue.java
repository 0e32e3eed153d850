package io.allot.bench;

import io.allot.store.jobs.ClaimedJobs;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.store.jobs.QueueStats;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link JobQueue} that counts and times the calls a worker makes (claim, finish, finishAll, extend) and passes every call
 * on unchanged: where the queue bench's time goes. Thread-safe: the counters are {@link LongAdder}s.
 */
final class CountingQueue implements JobQueue {
  private final JobQueue delegate;
  private final LongAdder claimCalls = new LongAdder();
  private final LongAdder emptyClaims = new LongAdder();
  private final LongAdder claimed = new LongAdder();
  private final LongAdder claimNanos = new LongAdder();
  private final LongAdder finishCalls = new LongAdder();
  private final LongAdder finishNanos = new LongAdder();
  private final LongAdder extendCalls = new LongAdder();
  private final LongAdder finishedJobs = new LongAdder();

  CountingQueue(JobQueue delegate) {
    this.delegate = delegate;
  }

  /** The counts of several queues added up. */
  record Totals(long claimCalls, long emptyClaims, long claimed, long claimNanos, long finishCalls, long finishNanos,
      long extendCalls, long finishedJobs) {}

  static Totals sum(List<CountingQueue> queues) {
    long a = 0;
    long b = 0;
    long c = 0;
    long d = 0;
    long e = 0;
    long f = 0;
    long g = 0;
    long h = 0;
    for (CountingQueue q : queues) {
      a += q.claimCalls.sum();
      b += q.emptyClaims.sum();
      c += q.claimed.sum();
      d += q.claimNanos.sum();
      e += q.finishCalls.sum();
      f += q.finishNanos.sum();
      g += q.extendCalls.sum();
      h += q.finishedJobs.sum();
    }
    return new Totals(a, b, c, d, e, f, g, h);
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public int enqueue(Collection<NewJob> jobs) {
    return delegate.enqueue(jobs);
  }

  @Override
  public ClaimedJobs claim(String worker, int max, Duration lockTtl) {
    long t0 = System.nanoTime();
    ClaimedJobs got = delegate.claim(worker, max, lockTtl);
    claimNanos.add(System.nanoTime() - t0);
    claimCalls.increment();
    claimed.add(got.size());
    if (got.isEmpty()) {
      emptyClaims.increment();
    }
    return got;
  }

  @Override
  public boolean extend(String key, long token, Duration lockTtl) {
    extendCalls.increment();
    return delegate.extend(key, token, lockTtl);
  }

  @Override
  public JobOutcome finish(String key, long token) {
    long t0 = System.nanoTime();
    JobOutcome o = delegate.finish(key, token);
    finishNanos.add(System.nanoTime() - t0);
    finishCalls.increment();
    finishedJobs.increment();
    return o;
  }

  @Override
  public Map<String, JobOutcome> finishAll(Map<String, Long> tokens) {
    long t0 = System.nanoTime();
    Map<String, JobOutcome> o = delegate.finishAll(tokens);
    finishNanos.add(System.nanoTime() - t0);
    finishCalls.increment();
    finishedJobs.add(tokens.size());
    return o;
  }

  @Override
  public JobOutcome fail(String key, long token, String error, Duration backoff) {
    return delegate.fail(key, token, error, backoff);
  }

  @Override
  public Optional<Job> get(String key) {
    return delegate.get(key);
  }

  @Override
  public int retry(Collection<String> keys) {
    return delegate.retry(keys);
  }

  @Override
  public int ignore(Collection<String> keys) {
    return delegate.ignore(keys);
  }

  @Override
  public int giveBack(String worker, Map<String, Long> tokens) {
    return delegate.giveBack(worker, tokens);
  }

  @Override
  public void limitRate(double jobsPerSecond) {
    delegate.limitRate(jobsPerSecond);
  }

  @Override
  public QueueStats stats(int failures) {
    return delegate.stats(failures);
  }

  @Override
  public int purge(Duration age, int max) {
    return delegate.purge(age, max);
  }
}

package io.allot.testkit;

import io.allot.store.jobs.ClaimedJob;
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

/** {@link FaultyStore}'s {@link JobQueue}: every call but {@code name()} goes through the fault first. */
final class FaultyJobQueue implements JobQueue {
  private final FaultyStore f;
  private final JobQueue d;

  FaultyJobQueue(FaultyStore f, JobQueue d) {
    this.f = f;
    this.d = d;
  }

  @Override
  public String name() {
    return d.name();
  }

  @Override
  public int enqueue(Collection<NewJob> jobs) {
    f.before("jobQueue.enqueue");
    return d.enqueue(jobs);
  }

  @Override
  public List<ClaimedJob> claim(String worker, int max, Duration lockTtl) {
    f.before("jobQueue.claim");
    return d.claim(worker, max, lockTtl);
  }

  @Override
  public boolean extend(String key, long token, Duration lockTtl) {
    f.before("jobQueue.extend");
    return d.extend(key, token, lockTtl);
  }

  @Override
  public JobOutcome finish(String key, long token) {
    f.before("jobQueue.finish");
    return d.finish(key, token);
  }

  @Override
  public Map<String, JobOutcome> finishAll(Map<String, Long> tokens) {
    f.before("jobQueue.finishAll");
    return d.finishAll(tokens);
  }

  @Override
  public JobOutcome fail(String key, long token, String error, Duration backoff) {
    f.before("jobQueue.fail");
    return d.fail(key, token, error, backoff);
  }

  @Override
  public Optional<Job> get(String key) {
    f.before("jobQueue.get");
    return d.get(key);
  }

  @Override
  public int retry(Collection<String> keys) {
    f.before("jobQueue.retry");
    return d.retry(keys);
  }

  @Override
  public int ignore(Collection<String> keys) {
    f.before("jobQueue.ignore");
    return d.ignore(keys);
  }

  @Override
  public void limitRate(double tasksPerSecond) {
    f.before("jobQueue.limitRate");
    d.limitRate(tasksPerSecond);
  }

  @Override
  public QueueStats stats(int failures) {
    f.before("jobQueue.stats");
    return d.stats(failures);
  }

  @Override
  public int purge(Duration age, int max) {
    f.before("jobQueue.purge");
    return d.purge(age, max);
  }
}

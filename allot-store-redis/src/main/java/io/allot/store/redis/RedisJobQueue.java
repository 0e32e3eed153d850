package io.allot.store.redis;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.ClaimedJobs;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.jobs.QueueStats;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@link JobQueue} on Redis (standalone or Cluster): the keys of {@link JobKeys}, all in the queue's slot, and one
 * Lua script per method ({@link JobScripts}), run with EVALSHA (EVAL when the node has not cached it). Times are
 * Redis {@code TIME} in microseconds, read inside each script; tokens are {@code max(previous + 1, now µs)}; the
 * clock margin comes from the store's {@link io.allot.store.Safety}. Input is checked here, before any call.
 * Immutable.
 */
final class RedisJobQueue implements JobQueue {
  /** The most jobs one claim moves from {@code delayed} (and from {@code locks}) into {@code ready}. */
  static final int MOVE_LIMIT = JobLimits.MAX_BATCH;
  /** Longer delays are cut to this (100 years), so due times stay exact as Lua numbers. */
  static final Duration MAX_DELAY = Duration.ofDays(36_500);

  private final RedisConnection redis;
  private final String name;
  private final String marginMicros;
  private final String[] keys;

  /**
   * @param clockMargin how long past its expiry a lock must be before its job is runnable again
   * @throws IllegalArgumentException if the name is not a valid queue name ({@link JobLimits#checkQueue})
   */
  RedisJobQueue(RedisConnection redis, Duration clockMargin, String name) {
    this.redis = redis;
    this.name = JobLimits.checkQueue(name);
    this.marginMicros = Long.toString(clockMargin.toNanos() / 1000);
    this.keys = JobKeys.of(redis, name);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int enqueue(Collection<NewJob> jobs) {
    String[] args = new String[JobLimits.checkEnqueue(jobs) * 5];
    int i = 0;
    for (NewJob t : jobs) {
      Duration delay = t.delay().compareTo(MAX_DELAY) > 0 ? MAX_DELAY : t.delay();
      args[i++] = t.key();
      args[i++] = t.data();
      args[i++] = Integer.toString(t.priority());
      args[i++] = Integer.toString(t.maxAttempts());
      args[i++] = Long.toString(delay.toNanos() / 1000);
    }
    if (args.length == 0) {
      return 0;
    }
    Long added = redis.run("enqueue " + jobs.size() + " jobs in queue " + name, JobScripts.ENQUEUE,
        ScriptOutputType.INTEGER, keys, args);
    return added.intValue();
  }

  @Override
  public ClaimedJobs claim(String worker, int max, Duration lockTtl) {
    long ttl = JobLimits.checkClaim(worker, max, lockTtl);
    List<Object> flat = redis.run("claim jobs in queue " + name, JobScripts.CLAIM, ScriptOutputType.MULTI, keys,
        worker, Integer.toString(max), Long.toString(ttl), marginMicros, Integer.toString(MOVE_LIMIT));
    // seven elements per job, then the rate-limit flag
    List<ClaimedJob> out = new ArrayList<>(flat.size() / 7);
    for (int i = 0; i + 6 < flat.size(); i += 7) {
      out.add(new ClaimedJob((String) flat.get(i), (String) flat.get(i + 1), Long.parseLong((String) flat.get(i + 2)),
          Integer.parseInt((String) flat.get(i + 3)), Integer.parseInt((String) flat.get(i + 4)),
          Long.parseLong((String) flat.get(i + 5)), Long.parseLong((String) flat.get(i + 6))));
    }
    boolean limited = flat.size() % 7 == 1 && "1".equals(flat.get(flat.size() - 1));
    return ClaimedJobs.of(out, limited);
  }

  @Override
  public boolean extend(String key, long token, Duration lockTtl) {
    JobLimits.checkKey(key);
    long ttl = JobLimits.checkLockTtl(lockTtl);
    return redis.runForFlag("extend job " + key + " in queue " + name, JobScripts.EXTEND, keys, key,
        Long.toString(token), Long.toString(ttl));
  }

  @Override
  public JobOutcome finish(String key, long token) {
    JobLimits.checkKey(key);
    boolean done = redis.runForFlag("finish job " + key + " in queue " + name, JobScripts.FINISH, keys, key,
        Long.toString(token), marginMicros);
    return done ? JobOutcome.FINISHED : JobOutcome.REJECTED;
  }

  @Override
  public Map<String, JobOutcome> finishAll(Map<String, Long> tokens) {
    JobLimits.checkBatch("jobs per finishAll", Math.max(1, tokens.size()));
    Map<String, JobOutcome> out = new LinkedHashMap<>();
    if (tokens.isEmpty()) {
      return out;
    }
    String[] args = new String[1 + 2 * tokens.size()];
    args[0] = marginMicros;
    int i = 1;
    for (Map.Entry<String, Long> e : tokens.entrySet()) {
      args[i++] = JobLimits.checkKey(e.getKey());
      args[i++] = Long.toString(Objects.requireNonNull(e.getValue(), "token"));
    }
    List<Object> ok = redis.run("finish " + tokens.size() + " jobs in queue " + name, JobScripts.FINISH_ALL,
        ScriptOutputType.MULTI, keys, args);
    int j = 0;
    for (String key : tokens.keySet()) {
      out.put(key, Long.valueOf(1).equals(ok.get(j++)) ? JobOutcome.FINISHED : JobOutcome.REJECTED);
    }
    return out;
  }

  @Override
  public JobOutcome fail(String key, long token, String error, Duration backoff) {
    JobLimits.checkKey(key);
    Objects.requireNonNull(backoff, "backoff");
    long delay = JobLimits.checkBackoff(backoff.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : backoff);
    String err = JobLimits.storedError(error);
    Long status = redis.run("fail job " + key + " in queue " + name, JobScripts.FAIL, ScriptOutputType.INTEGER,
        keys, key, Long.toString(token), err, Long.toString(delay));
    if (status == null || status == 0L) {
      return JobOutcome.REJECTED;
    }
    return status == JobStatus.IGNORED.code() ? JobOutcome.IGNORED : JobOutcome.RETRY_SCHEDULED;
  }

  @Override
  public Optional<Job> get(String key) {
    JobLimits.checkKey(key);
    List<Object> r = redis.run("read job " + key + " in queue " + name, JobScripts.GET, ScriptOutputType.MULTI,
        keys, key);
    if (r == null || r.isEmpty() || r.get(0) == null) {
      return Optional.empty();
    }
    return Optional.of(job(key, (String) r.get(0), (String) r.get(1), (String) r.get(2)));
  }

  /** Parses a state record {@code "status|attempts|max|priority|due|updated|token|worker"} (µs) into a job. */
  static Job job(String key, String record, String data, String error) {
    String[] f = record.split("\\|", 8);
    if (f.length != 8) {
      throw new IllegalStateException("job '" + key + "' has an unreadable record '" + record + "'");
    }
    return new Job(key, JobStatus.ofCode(Integer.parseInt(f[0])), data, Integer.parseInt(f[3]),
        Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[4]) / 1000, Long.parseLong(f[5]) / 1000,
        Long.parseLong(f[6]), f[7], error);
  }

  @Override
  public int retry(Collection<String> keys) {
    return byHand("retry", JobScripts.RETRY, keys);
  }

  @Override
  public int ignore(Collection<String> keys) {
    return byHand("ignore", JobScripts.IGNORE, keys);
  }

  @Override
  public int giveBack(String worker, Map<String, Long> tokens) {
    String[] args = new String[1 + 2 * JobLimits.checkGiveBack(worker, tokens)];
    if (tokens.isEmpty()) {
      return 0;
    }
    args[0] = worker;
    int i = 1;
    for (Map.Entry<String, Long> e : tokens.entrySet()) {
      args[i++] = e.getKey();
      args[i++] = Long.toString(e.getValue());
    }
    Long n = redis.run("give back " + tokens.size() + " jobs in queue " + name, JobScripts.GIVE_BACK,
        ScriptOutputType.INTEGER, keys, args);
    return n.intValue();
  }

  private int byHand(String what, Script script, Collection<String> jobKeys) {
    return JobLimits.byHand(jobKeys, args -> redis.<Long>run(what + " " + args.length + " jobs in queue " + name,
        script, ScriptOutputType.INTEGER, keys, args).intValue());
  }

  @Override
  public void limitRate(double jobsPerSecond) {
    JobLimits.checkRate(jobsPerSecond);
    redis.run("limit the rate of queue " + name, JobScripts.LIMIT_RATE, ScriptOutputType.INTEGER, keys,
        Double.toString(jobsPerSecond));
  }

  @Override
  public QueueStats stats(int failures) {
    if (failures < 0) {
      throw new IllegalArgumentException("failures must be >= 0 but was " + failures);
    }
    List<Object> r = redis.run("stats of queue " + name, JobScripts.STATS, ScriptOutputType.MULTI, keys,
        Integer.toString(failures));
    Map<JobStatus, Long> counts = new EnumMap<>(JobStatus.class);
    List<?> flat = (List<?>) r.get(0);
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      long n = Long.parseLong((String) flat.get(i + 1));
      if (n != 0) {
        counts.put(JobStatus.ofCode(Integer.parseInt((String) flat.get(i))), n);
      }
    }
    String oldest = (String) r.get(1);
    String rate = (String) r.get(2);
    List<Job> recent = new ArrayList<>();
    for (int i = 3; i + 3 < r.size(); i += 4) {
      recent.add(job((String) r.get(i + 3), (String) r.get(i), (String) r.get(i + 1), (String) r.get(i + 2)));
    }
    return new QueueStats(counts, oldest.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(oldest)
        / 1000), recent, rate.isEmpty() ? 0 : Double.parseDouble(rate));
  }

  @Override
  public int purge(Duration age, int max) {
    JobLimits.checkAge(age);
    JobLimits.checkBatch("max", max);
    Duration a = age.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : age;
    Long n = redis.run("purge queue " + name, JobScripts.PURGE, ScriptOutputType.INTEGER, keys,
        Long.toString(a.toNanos() / 1000), Integer.toString(max));
    return n.intValue();
  }

  @Override
  public String toString() {
    return "RedisJobQueue[" + name + " on " + redis.where() + "]";
  }
}

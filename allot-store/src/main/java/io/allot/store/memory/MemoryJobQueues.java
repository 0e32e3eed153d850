package io.allot.store.memory;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.ClaimedJobs;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.jobs.QueueStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;

/**
 * The memory store's job queues: every queue's jobs in one process, each call one step under one lock, times
 * from the store's clock. The reference the other stores' contract tests are read against.
 */
public final class MemoryJobQueues {
  private static final Comparator<Row> RUN_ORDER = Comparator.<Row>comparingInt(r -> -r.priority)
      .thenComparingLong(r -> r.dueMicros).thenComparing(r -> r.key);

  private final LongSupplier micros;
  private final long marginMicros;
  private final Object lock = new Object();
  /** Guarded by {@link #lock}. */
  private final Map<String, QueueState> queues = new HashMap<>();

  /**
   * @param micros      the store's clock in microseconds since the epoch (monotonic)
   * @param clockMargin how long past its expiry a lock must be before its job is runnable again
   */
  public MemoryJobQueues(LongSupplier micros, Duration clockMargin) {
    this.micros = Objects.requireNonNull(micros, "micros");
    this.marginMicros = clockMargin.toNanos() / 1000;
  }

  /** The view of queue {@code name}. */
  public JobQueue queue(String name) {
    return new View(JobLimits.checkQueue(name));
  }

  /** The queues that hold a job or have a rate limit, sorted ({@link io.allot.store.jobs.JobQueues#names()}). */
  public List<String> names() {
    synchronized (lock) {
      List<String> out = new ArrayList<>();
      queues.forEach((name, q) -> {
        if (!q.rows.isEmpty() || q.rate > 0) {
          out.add(name);
        }
      });
      out.sort(null);
      return out;
    }
  }

  /** Forgets every queue (a crash of a store without persistence). */
  public void clear() {
    synchronized (lock) {
      queues.clear();
    }
  }

  /** A job; mutable, guarded by {@link MemoryJobQueues#lock}. */
  private static final class Row {
    final String key;
    final int priority;
    final int maxAttempts;
    String data;
    JobStatus status = JobStatus.TODO;
    int attempts;
    long dueMicros;
    long updatedMicros;
    long token;
    String lockedBy = "";
    String lastError = "";

    Row(NewJob t, long now) {
      key = t.key();
      data = t.data();
      priority = t.priority();
      maxAttempts = t.maxAttempts();
      dueMicros = now + t.delay().toNanos() / 1000;
      updatedMicros = now;
    }

    Job snapshot() {
      return new Job(key, status, data, priority, attempts, maxAttempts, dueMicros / 1000, updatedMicros / 1000,
          token, lockedBy, lastError);
    }
  }

  /** One queue; guarded by {@link MemoryJobQueues#lock}. */
  private static final class QueueState {
    final Map<String, Row> rows = new HashMap<>();
    /** Rows not final, in claim order. */
    final TreeSet<Row> open = new TreeSet<>(RUN_ORDER);
    double rate;
    double permits;
    long refilledMicros;
  }

  private final class View implements JobQueue {
    private final String name;

    View(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    private QueueState state() {
      return queues.computeIfAbsent(name, n -> new QueueState());
    }

    @Override
    public int enqueue(Collection<NewJob> jobs) {
      JobLimits.checkEnqueue(jobs);
      synchronized (lock) {
        QueueState q = state();
        long now = micros.getAsLong();
        int added = 0;
        for (NewJob t : jobs) {
          if (!q.rows.containsKey(t.key())) {
            Row r = new Row(t, now);
            q.rows.put(r.key, r);
            q.open.add(r);
            added++;
          }
        }
        return added;
      }
    }

    @Override
    public ClaimedJobs claim(String worker, int max, Duration lockTtl) {
      long ttl = JobLimits.checkClaim(worker, max, lockTtl);
      synchronized (lock) {
        QueueState q = state();
        long now = micros.getAsLong();
        int allowed = max;
        if (q.rate > 0) {
          refill(q, now);
          allowed = (int) Math.min(max, Math.floor(q.permits));
        }
        List<Row> picked = new ArrayList<>();
        List<Row> expiredLast = new ArrayList<>();
        boolean leftForPermits = false; // a runnable job the bucket's permits kept from this claim
        for (Row r : q.open) {
          if (picked.size() >= allowed && allowed == max) {
            break; // all asked for: no need to look further
          }
          if (!runnable(r, now)) {
            continue;
          }
          if (picked.size() >= allowed) {
            leftForPermits = true; // the bucket had fewer permits than asked and this runnable job is left
            break;
          }
          if (r.status == JobStatus.PROCESSING && r.attempts >= r.maxAttempts) {
            expiredLast.add(r);
          } else {
            picked.add(r);
          }
        }
        for (Row r : expiredLast) {
          q.open.remove(r);
          r.status = JobStatus.IGNORED;
          r.lastError = "lock of " + r.lockedBy + " expired on the last attempt (" + r.attempts + " of "
              + r.maxAttempts + ")";
          r.updatedMicros = now;
        }
        List<ClaimedJob> out = new ArrayList<>(picked.size());
        for (Row r : picked) {
          long wasDueMicros = r.dueMicros;
          q.open.remove(r);
          r.status = JobStatus.PROCESSING;
          r.attempts++;
          r.token = Math.max(r.token + 1, now);
          r.lockedBy = worker;
          r.dueMicros = now + ttl;
          r.updatedMicros = now;
          q.open.add(r);
          out.add(new ClaimedJob(r.key, r.data, r.token, r.attempts, r.maxAttempts, r.dueMicros / 1000,
              wasDueMicros / 1000));
        }
        if (q.rate > 0) {
          q.permits -= out.size();
        }
        return ClaimedJobs.of(out, leftForPermits);
      }
    }

    private boolean runnable(Row r, long now) {
      if (r.status == JobStatus.PROCESSING) {
        return r.dueMicros + marginMicros <= now;
      }
      return r.dueMicros <= now;
    }

    @Override
    public boolean extend(String key, long token, Duration lockTtl) {
      JobLimits.checkKey(key);
      long ttl = JobLimits.checkLockTtl(lockTtl);
      synchronized (lock) {
        QueueState q = state();
        Row r = held(q, key, token);
        if (r == null) {
          return false;
        }
        q.open.remove(r);
        r.dueMicros = micros.getAsLong() + ttl;
        q.open.add(r);
        return true;
      }
    }

    @Override
    public JobOutcome finish(String key, long token) {
      JobLimits.checkKey(key);
      synchronized (lock) {
        QueueState q = state();
        Row r = held(q, key, token);
        if (r == null) {
          return JobOutcome.REJECTED;
        }
        q.open.remove(r);
        r.status = JobStatus.FINISHED;
        r.updatedMicros = micros.getAsLong();
        return JobOutcome.FINISHED;
      }
    }

    @Override
    public Map<String, JobOutcome> finishAll(Map<String, Long> tokens) {
      JobLimits.checkBatch("jobs per finishAll", Math.max(1, tokens.size()));
      tokens.keySet().forEach(JobLimits::checkKey);
      Map<String, JobOutcome> out = new java.util.LinkedHashMap<>();
      synchronized (lock) {
        for (Map.Entry<String, Long> e : tokens.entrySet()) {
          out.put(e.getKey(), finish(e.getKey(), e.getValue()));
        }
      }
      return out;
    }

    @Override
    public JobOutcome fail(String key, long token, String error, Duration backoff) {
      JobLimits.FailedAttempt f = JobLimits.checkFail(key, error, backoff);
      synchronized (lock) {
        QueueState q = state();
        Row r = held(q, key, token);
        if (r == null) {
          return JobOutcome.REJECTED;
        }
        long now = micros.getAsLong();
        q.open.remove(r);
        r.lastError = f.error();
        r.updatedMicros = now;
        if (r.attempts >= r.maxAttempts) {
          r.status = JobStatus.IGNORED;
          return JobOutcome.IGNORED;
        }
        r.status = JobStatus.FAILED;
        r.dueMicros = now + f.backoffMicros();
        q.open.add(r);
        return JobOutcome.RETRY_SCHEDULED;
      }
    }

    /** The row if {@code token} holds its lock (processing under that token), else null. */
    private Row held(QueueState q, String key, long token) {
      Row r = q.rows.get(key);
      return r != null && r.status == JobStatus.PROCESSING && r.token == token ? r : null;
    }

    @Override
    public Optional<Job> get(String key) {
      JobLimits.checkKey(key);
      synchronized (lock) {
        Row r = state().rows.get(key);
        return Optional.ofNullable(r == null ? null : r.snapshot());
      }
    }

    @Override
    public int retry(Collection<String> keys) {
      return byHand(keys, (r, now) -> {
        r.status = JobStatus.TODO;
        r.attempts = 0;
        r.dueMicros = now;
        r.updatedMicros = now;
      }, r -> true);
    }

    @Override
    public int ignore(Collection<String> keys) {
      return byHand(keys, (r, now) -> {
        if (r.status != JobStatus.FINISHED) { // it ran: left as it is
          r.status = JobStatus.IGNORED;
          r.updatedMicros = now;
        }
      }, r -> r.status == JobStatus.IGNORED);
    }

    @Override
    public int giveBack(String worker, Map<String, Long> tokens) {
      JobLimits.checkGiveBack(worker, tokens);
      synchronized (lock) {
        QueueState q = state();
        long now = micros.getAsLong();
        int n = 0;
        for (Map.Entry<String, Long> e : tokens.entrySet()) {
          Row r = held(q, e.getKey(), e.getValue());
          if (r != null && r.lockedBy.equals(worker)) {
            q.open.remove(r);
            r.status = JobStatus.TODO;
            r.attempts = Math.max(0, r.attempts - 1);
            r.dueMicros = now;
            r.updatedMicros = now;
            q.open.add(r);
            n++;
          }
        }
        return n;
      }
    }

    /**
     * Applies {@code change} (given the time) to each job of {@code keys} that exists; returns how many then pass
     * {@code counted}.
     */
    private int byHand(Collection<String> keys, ObjLongConsumer<Row> change, Predicate<Row> counted) {
      String[] distinct = JobLimits.checkKeys(keys);
      synchronized (lock) {
        QueueState q = state();
        long now = micros.getAsLong();
        int n = 0;
        for (String k : distinct) {
          Row r = q.rows.get(k);
          if (r != null) {
            q.open.remove(r);
            change.accept(r, now);
            if (!r.status.isFinal()) {
              q.open.add(r);
            }
            n += counted.test(r) ? 1 : 0;
          }
        }
        return n;
      }
    }

    @Override
    public void limitRate(double jobsPerSecond) {
      JobLimits.checkRate(jobsPerSecond);
      synchronized (lock) {
        QueueState q = state();
        long now = micros.getAsLong();
        if (q.rate > 0) {
          refill(q, now);
        } else {
          q.permits = 0;
          q.refilledMicros = now;
        }
        q.rate = jobsPerSecond;
        q.permits = Math.min(q.permits, capacity(jobsPerSecond));
      }
    }

    @Override
    public QueueStats stats(int failures) {
      if (failures < 0) {
        throw new IllegalArgumentException("failures must be >= 0 but was " + failures);
      }
      synchronized (lock) {
        QueueState q = state();
        Map<JobStatus, Long> counts = new EnumMap<>(JobStatus.class);
        long oldest = Long.MAX_VALUE;
        List<Row> failed = new ArrayList<>();
        for (Row r : q.rows.values()) {
          counts.merge(r.status, 1L, Long::sum);
          if (r.status == JobStatus.TODO) {
            oldest = Math.min(oldest, r.dueMicros);
          }
          if (r.status == JobStatus.FAILED || r.status == JobStatus.IGNORED) {
            failed.add(r);
          }
        }
        failed.sort(Comparator.<Row>comparingLong(r -> -r.updatedMicros).thenComparing(r -> r.key));
        List<Job> recent = failed.stream().limit(failures).map(Row::snapshot).toList();
        return new QueueStats(counts, oldest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(oldest / 1000),
            recent, q.rate);
      }
    }

    @Override
    public int purge(Duration age, int max) {
      if (age.isNegative()) {
        throw new IllegalArgumentException("age must be >= 0 but was " + age);
      }
      JobLimits.checkBatch("max", max);
      synchronized (lock) {
        QueueState q = state();
        long before = micros.getAsLong() - age.toNanos() / 1000;
        int n = 0;
        for (Iterator<Row> it = q.rows.values().iterator(); it.hasNext() && n < max; ) {
          Row r = it.next();
          if (r.status.isFinal() && r.updatedMicros <= before) {
            it.remove();
            n++;
          }
        }
        return n;
      }
    }
  }

  private static void refill(QueueState q, long now) {
    double add = (now - q.refilledMicros) / 1e6 * q.rate;
    q.permits = Math.min(capacity(q.rate), q.permits + Math.max(0, add));
    q.refilledMicros = Math.max(q.refilledMicros, now);
  }

  /** A bucket holds one second of the rate, and at least one permit. */
  static double capacity(double rate) {
    return Math.max(1.0, rate);
  }
}

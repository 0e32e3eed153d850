package io.allot.store.postgres;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.ClaimedJobs;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.jobs.QueueStats;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@link JobQueue} on PostgreSQL: the rows of table {@code jobs} (schema version 7), one statement per call.
 * {@link #claim} is the function {@code claim_jobs} ({@code FOR UPDATE SKIP LOCKED} over the partial index of open
 * jobs, the rate limit's bucket in {@code job_queues}); the others are plain statements whose {@code WHERE} holds
 * the token check (and {@link #ignore}'s the rule that a finished job stays finished), so a stale token changes no
 * row; being one statement each, they need no function in {@code functions.sql} nor a new schema version. Times are {@code clock_timestamp()}. Immutable.
 */
final class PgJobQueue implements JobQueue {
  private static final String MS = "floor(extract(epoch FROM %s) * 1000)::bigint";

  /** The statements of one schema, built once per store. */
  static final class Statements {
    final String enqueue;
    final String claim;
    final String extend;
    final String finish;
    final String finishAll;
    final String fail;
    final String get;
    final String retry;
    final String ignore;
    final String giveBack;
    final String limitRate;
    final String counts;
    final String oldestTodo;
    final String failures;
    final String rate;
    final String purge;
    final long marginMicros;

    Statements(String s, Duration clockMargin) {
      marginMicros = clockMargin.toNanos() / 1000;
      String t = s + ".jobs";
      enqueue = "INSERT INTO " + t + " (queue, key, data, priority, max_attempts, due_at, updated_at) "
          + "SELECT ?, x.k, x.d, x.p, x.m, clock_timestamp() + x.delay * interval '1 microsecond', clock_timestamp() "
          + "FROM unnest(?::text[], ?::text[], ?::int[], ?::int[], ?::bigint[]) AS x(k, d, p, m, delay) "
          + "ON CONFLICT (queue, key) DO NOTHING";
      claim = "SELECT * FROM " + s + ".claim_jobs(?, ?, ?, ?, ?)";
      String held = " WHERE queue = ? AND key = ? AND status = 30 AND lock_token = ?";
      extend = "UPDATE " + t + " SET due_at = clock_timestamp() + ? * interval '1 microsecond'" + held;
      finish = "UPDATE " + t + " SET status = 50, updated_at = clock_timestamp()" + held;
      // `status + 0`: the rows are found by their primary key, one probe per key. With `status = 30` the planner
      // took the index (queue, status, updated_at) for every processing row of the queue (and their dead versions)
      // and compared each with every key: a finishAll of 150 took ~250 ms under a backlog (bench jobs, issue 22)
      finishAll = "UPDATE " + t + " t SET status = 50, updated_at = clock_timestamp() "
          + "FROM unnest(?::text[], ?::bigint[]) AS x(k, tok) "
          + "WHERE t.queue = ? AND t.key = x.k AND t.status + 0 = 30 AND t.lock_token = x.tok RETURNING t.key";
      fail = "UPDATE " + t + " SET status = CASE WHEN attempts >= max_attempts THEN 70 ELSE 20 END, "
          + "due_at = clock_timestamp() + ? * interval '1 microsecond', last_error = ?, updated_at = clock_timestamp()"
          + held + " RETURNING status";
      get = "SELECT key, status, data, priority, attempts, max_attempts, " + MS.formatted("due_at") + ", "
          + MS.formatted("updated_at") + ", lock_token, locked_by, last_error FROM " + t;
      retry = "UPDATE " + t + " SET status = 0, attempts = 0, due_at = clock_timestamp(), "
          + "updated_at = clock_timestamp() WHERE queue = ? AND key = ANY (?)";
      // a finished job is left as it is: the status is part of the WHERE, so a finish committed while this statement
      // waited for the row is re-checked against it (never turned ignored)
      ignore = "UPDATE " + t + " SET status = 70, updated_at = clock_timestamp() WHERE queue = ? AND key = ANY (?) "
          + "AND status <> 50";
      giveBack = "UPDATE " + t + " t SET status = 0, attempts = greatest(t.attempts - 1, 0), due_at = clock_timestamp(),"
          + " updated_at = clock_timestamp() FROM unnest(?::text[], ?::bigint[]) AS x(k, tok) "
          + "WHERE t.queue = ? AND t.key = x.k AND t.status + 0 = 30 AND t.lock_token = x.tok AND t.locked_by = ?";
      limitRate = "SELECT " + s + ".limit_job_rate(?, ?)";
      counts = "SELECT status, count(*) FROM " + t + " WHERE queue = ? GROUP BY status";
      oldestTodo = "SELECT " + MS.formatted("min(due_at)") + " FROM " + t + " WHERE queue = ? AND status = 0";
      failures = get + " WHERE queue = ? AND status IN (20, 70) ORDER BY updated_at DESC, key LIMIT ?";
      rate = "SELECT rate FROM " + s + ".job_queues WHERE queue = ?";
      // the status and the age are tested again in the outer WHERE: a row changed while the DELETE waited for it (a
      // retry by hand committed meanwhile, or a retry, claim and finish: final again but new) is re-checked by
      // PostgreSQL against the outer WHERE only, never the subquery
      String old = " AND status IN (50, 70) AND updated_at <= clock_timestamp() - ? * interval '1 microsecond'";
      purge = "DELETE FROM " + t + " WHERE queue = ?" + old + " AND key IN (SELECT key FROM " + t
          + " WHERE queue = ?" + old + " LIMIT ?)";
    }
  }

  private final PgJdbc db;
  private final Statements sql;
  private final String name;

  PgJobQueue(PgJdbc db, Statements sql, String name) {
    this.db = db;
    this.sql = sql;
    this.name = JobLimits.checkQueue(name);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int enqueue(Collection<NewJob> jobs) {
    int n = JobLimits.checkEnqueue(jobs);
    String[] keys = new String[n];
    String[] data = new String[n];
    Integer[] priorities = new Integer[n];
    Integer[] attempts = new Integer[n];
    Long[] delays = new Long[n];
    int i = 0;
    for (NewJob t : jobs) {
      keys[i] = t.key();
      data[i] = t.data();
      priorities[i] = t.priority();
      attempts[i] = t.maxAttempts();
      delays[i] = t.delay().toNanos() / 1000;
      i++;
    }
    if (n == 0) {
      return 0;
    }
    return db.call("enqueue " + n + " jobs in queue " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.enqueue)) {
        ps.setString(1, name);
        ps.setArray(2, c.createArrayOf("text", keys));
        ps.setArray(3, c.createArrayOf("text", data));
        ps.setArray(4, c.createArrayOf("integer", priorities));
        ps.setArray(5, c.createArrayOf("integer", attempts));
        ps.setArray(6, c.createArrayOf("bigint", delays));
        return ps.executeUpdate();
      }
    });
  }

  @Override
  public ClaimedJobs claim(String worker, int max, Duration lockTtl) {
    long ttl = JobLimits.checkClaim(worker, max, lockTtl);
    return db.query("claim jobs in queue " + name, sql.claim, rs -> {
      List<ClaimedJob> out = new ArrayList<>();
      boolean limited = false;
      while (rs.next()) {
        String key = rs.getString(1);
        if (key == null) { // the last row: the rate limit cut the claim short (schema v14)
          limited = rs.getBoolean(8);
          continue;
        }
        out.add(new ClaimedJob(key, rs.getString(2), rs.getLong(3), rs.getInt(4), rs.getInt(5),
            rs.getLong(6), rs.getLong(7)));
      }
      return ClaimedJobs.of(out, limited);
    }, name, worker, max, ttl, sql.marginMicros);
  }

  @Override
  public boolean extend(String key, long token, Duration lockTtl) {
    JobLimits.checkKey(key);
    long ttl = JobLimits.checkLockTtl(lockTtl);
    return db.update("extend job " + key + " in queue " + name, sql.extend, ttl, name, key, token) == 1;
  }

  @Override
  public JobOutcome finish(String key, long token) {
    JobLimits.checkKey(key);
    int changed = db.update("finish job " + key + " in queue " + name, sql.finish, name, key, token);
    return changed == 1 ? JobOutcome.FINISHED : JobOutcome.REJECTED;
  }

  @Override
  public Map<String, JobOutcome> finishAll(Map<String, Long> tokens) {
    JobLimits.checkBatch("jobs per finishAll", Math.max(1, tokens.size()));
    String[] keys = new String[tokens.size()];
    Long[] toks = new Long[tokens.size()];
    int i = 0;
    for (Map.Entry<String, Long> e : tokens.entrySet()) {
      keys[i] = JobLimits.checkKey(e.getKey());
      toks[i++] = Objects.requireNonNull(e.getValue(), "token");
    }
    Map<String, JobOutcome> out = new java.util.LinkedHashMap<>();
    for (String k : keys) {
      out.put(k, JobOutcome.REJECTED);
    }
    if (keys.length == 0) {
      return out;
    }
    return db.call("finish " + keys.length + " jobs in queue " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.finishAll)) {
        ps.setArray(1, c.createArrayOf("text", keys));
        ps.setArray(2, c.createArrayOf("bigint", toks));
        ps.setString(3, name);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getString(1), JobOutcome.FINISHED);
          }
        }
      }
      return out;
    });
  }

  @Override
  public JobOutcome fail(String key, long token, String error, Duration backoff) {
    JobLimits.FailedAttempt f = JobLimits.checkFail(key, error, backoff);
    return db.query("fail job " + key + " in queue " + name, sql.fail, rs -> {
      if (!rs.next()) {
        return JobOutcome.REJECTED;
      }
      return rs.getInt(1) == JobStatus.IGNORED.code() ? JobOutcome.IGNORED : JobOutcome.RETRY_SCHEDULED;
    }, f.backoffMicros(), f.error(), name, key, token);
  }

  @Override
  public Optional<Job> get(String key) {
    JobLimits.checkKey(key);
    return db.query("read job " + key + " in queue " + name, sql.get + " WHERE queue = ? AND key = ?",
        rs -> Optional.ofNullable(rs.next() ? job(rs) : null), name, key);
  }

  private static Job job(ResultSet rs) throws SQLException {
    return new Job(rs.getString(1), JobStatus.ofCode(rs.getInt(2)), rs.getString(3), rs.getInt(4), rs.getInt(5),
        rs.getInt(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getString(10), rs.getString(11));
  }

  @Override
  public int retry(Collection<String> keys) {
    return JobLimits.byHand(keys, a -> db.update("retry " + a.length + " jobs in queue " + name, sql.retry, name, a));
  }

  @Override
  public int ignore(Collection<String> keys) {
    return JobLimits.byHand(keys, a -> db.update("ignore " + a.length + " jobs in queue " + name, sql.ignore, name, a));
  }

  @Override
  public int giveBack(String worker, Map<String, Long> tokens) {
    int n = JobLimits.checkGiveBack(worker, tokens);
    if (n == 0) {
      return 0;
    }
    String[] keys = tokens.keySet().toArray(new String[0]);
    Long[] toks = new Long[n];
    for (int i = 0; i < n; i++) {
      toks[i] = tokens.get(keys[i]);
    }
    return db.call("give back " + n + " jobs in queue " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.giveBack)) {
        ps.setArray(1, c.createArrayOf("text", keys));
        ps.setArray(2, c.createArrayOf("bigint", toks));
        ps.setString(3, name);
        ps.setString(4, worker);
        return ps.executeUpdate();
      }
    });
  }

  @Override
  public void limitRate(double jobsPerSecond) {
    JobLimits.checkRate(jobsPerSecond);
    db.call("limit the rate of queue " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.limitRate)) {
        ps.setString(1, name);
        ps.setDouble(2, jobsPerSecond);
        ps.executeQuery().close();
        return null;
      }
    });
  }

  @Override
  public QueueStats stats(int failures) {
    if (failures < 0) {
      throw new IllegalArgumentException("failures must be >= 0 but was " + failures);
    }
    return db.call("stats of queue " + name, c -> {
      Map<JobStatus, Long> counts = new EnumMap<>(JobStatus.class);
      try (PreparedStatement ps = c.prepareStatement(sql.counts)) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            counts.put(JobStatus.ofCode(rs.getInt(1)), rs.getLong(2));
          }
        }
      }
      OptionalLong oldest = OptionalLong.empty();
      try (PreparedStatement ps = c.prepareStatement(sql.oldestTodo)) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          long v = rs.getLong(1);
          if (!rs.wasNull()) {
            oldest = OptionalLong.of(v);
          }
        }
      }
      List<Job> recent = new ArrayList<>();
      if (failures > 0) {
        try (PreparedStatement ps = c.prepareStatement(sql.failures)) {
          ps.setString(1, name);
          ps.setInt(2, failures);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              recent.add(job(rs));
            }
          }
        }
      }
      double rate = 0;
      try (PreparedStatement ps = c.prepareStatement(sql.rate)) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            rate = rs.getDouble(1);
          }
        }
      }
      return new QueueStats(counts, oldest, recent, rate);
    });
  }

  @Override
  public int purge(Duration age, int max) {
    JobLimits.checkAge(age);
    JobLimits.checkBatch("max", max);
    long micros = age.toNanos() / 1000;
    return db.update("purge queue " + name, sql.purge, name, micros, name, micros, max);
  }

}

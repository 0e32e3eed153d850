package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.StoreClock;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueueContractTest;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job-queue contract on PostgreSQL (a schema of its own), two stores as two processes would have: claims go
 * through one, completions through the other. Plus what SQL users see in the table.
 */
class PostgresJobQueueTest extends JobQueueContractTest {
  @RegisterExtension
  static final PeerStores STORES = new PeerStores();
  private static final TestSchema SCHEMA = STORES.schema();

  @Override
  protected JobQueue queue(String name) {
    return STORES.next().jobQueue(name);
  }

  @Override
  protected StoreClock clock() {
    return STORES.store().clock();
  }


  @Test
  void sqlUsersSeeTheStatusCodesInTheJobsTable() throws SQLException {
    JobQueue q = STORES.store().jobQueue("sql-visible");
    q.enqueue(List.of(NewJob.of("a", "{\"to\":\"x@example.org\"}"), NewJob.of("b")));
    ClaimedJob c = q.claim("w", 1, Duration.ofMinutes(1)).get(0);
    q.finish(c.key(), c.token());
    try (Connection raw = TestSchema.raw(); Statement st = raw.createStatement();
        ResultSet rs = st.executeQuery("SELECT key, status, attempts, lock_token, data FROM " + SCHEMA.quoted()
            + ".jobs WHERE queue = 'sql-visible' ORDER BY key")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("a");
      assertThat(rs.getInt(2)).isEqualTo(50);
      assertThat(rs.getInt(3)).isEqualTo(1);
      assertThat(rs.getLong(4)).isEqualTo(c.token());
      assertThat(rs.getString(5)).isEqualTo("{\"to\":\"x@example.org\"}");
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(2)).isZero();
    }
  }

  /**
   * A purge never deletes a job that stopped being final under it. The interleaving: T1 retries K (finished -> todo)
   * and has not committed; T2's purge picks K by its committed, final status and waits for K's row; T1 commits; T2
   * must now leave K alone. PostgreSQL re-checks only the outer WHERE of the waiting DELETE against the new row, so
   * the status test must be there, not only in the subquery that picked K (without it, K was deleted: the job lost).
   */
  @Test
  void aPurgeWaitingOnAJobRetriedMeanwhileLeavesItAlone() throws Exception {
    JobQueue q = twoFinishedJobs("purge-race");
    // the retry's statement
    assertThat(purgeWhileKIsUpdated(q, "status = 0, attempts = 0, due_at = clock_timestamp(), updated_at = "
        + "clock_timestamp()", Duration.ZERO)).as("only the job still final").isEqualTo(1);
    assertThat(q.get("k")).as("the retried job is kept").get().extracting(j -> j.status().code()).isEqualTo(0);
    assertThat(q.get("old")).isEmpty();
  }

  /**
   * Found by the job simulator ({@code JobRoundsTest.postgresPurgeRace}): the job was retried, claimed and finished
   * again while the purge waited for its row, so it is final again but changed just now; the purge of jobs older than
   * an hour must leave it (the outer WHERE re-checks the age too, not only the status).
   */
  @Test
  void aPurgeWaitingOnAJobFinishedAgainMeanwhileLeavesItAlone() throws Exception {
    JobQueue q = twoFinishedJobs("purge-age-race");
    try (Connection age = TestSchema.raw(); Statement st = age.createStatement()) { // both finished two hours ago
      st.executeUpdate("UPDATE " + SCHEMA.quoted() + ".jobs SET updated_at = clock_timestamp() - interval '2 hours'"
          + " WHERE queue = '" + q.name() + "'");
    }
    // retried, claimed and finished again: final, changed now
    assertThat(purgeWhileKIsUpdated(q, "status = 50, updated_at = clock_timestamp()", Duration.ofHours(1)))
        .as("only the job still old").isEqualTo(1);
    assertThat(q.get("k")).as("the job finished again just now is kept").isPresent();
    assertThat(q.get("old")).isEmpty();
  }

  /** The queue {@code name} holding the jobs 'k' and 'old', both claimed and finished. */
  private static JobQueue twoFinishedJobs(String name) {
    JobQueue q = STORES.store().jobQueue(name);
    q.enqueue(List.of(NewJob.of("k"), NewJob.of("old")));
    for (ClaimedJob c : q.claim("w", 2, Duration.ofMinutes(1))) {
      q.finish(c.key(), c.token());
    }
    return q;
  }

  /**
   * The race: T1 sets {@code set} on job 'k' and does not commit; a purge of jobs older than {@code age} runs on the
   * peer store, waits for k's row; T1 commits. Returns the purge's count.
   */
  private static int purgeWhileKIsUpdated(JobQueue q, String set, Duration age) throws Exception {
    try (Connection t1 = TestSchema.raw()) {
      t1.setAutoCommit(false);
      try (Statement st = t1.createStatement()) {
        st.executeUpdate("UPDATE " + SCHEMA.quoted() + ".jobs SET " + set + " WHERE queue = '" + q.name()
            + "' AND key = 'k'");
      }
      CompletableFuture<Integer> purge = CompletableFuture.supplyAsync(
          () -> STORES.peer().jobQueue(q.name()).purge(age, 10));
      awaitAPurgeWaitingForARowLock();
      t1.commit();
      return purge.get(10, TimeUnit.SECONDS);
    }
  }

  /** Waits until a purge (a DELETE of this schema's jobs) waits for a row lock. */
  private static void awaitAPurgeWaitingForARowLock() {
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
      try (Connection c = TestSchema.raw(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
              + "AND query LIKE 'DELETE FROM " + SCHEMA.quoted() + ".jobs%'")) {
        rs.next();
        return rs.getInt(1) > 0;
      }
    });
  }

  /**
   * Every statement that changes held jobs finds them by primary key (the claim's updates by row id), whatever the
   * planner believes of the table. The statistics here are stale the way a burst leaves them: analyzed while the
   * queue held 20 jobs beside another of 2,000, then 100,000 enqueued. With them the batched finish used to hash every
   * row of the queue per call, the single-row statements to take the index (queue, status, updated_at) in a generic
   * plan (bench jobs, issue 22). Plans are read from auto_explain, sent to this connection as notices; each statement
   * runs once with a custom plan and once with the generic plan a session caches.
   */
  @Test
  void statementsFindTheirRowsByPrimaryKeyWhateverTheStatistics() throws SQLException {
    JobQueue other = STORES.store().jobQueue("stats-other");
    JobQueue q = STORES.store().jobQueue("stats");
    other.enqueue(keys("o", 2000));
    q.enqueue(keys("k", 20));
    try (Connection raw = TestSchema.raw(); Statement st = raw.createStatement()) {
      st.execute("ANALYZE " + SCHEMA.quoted() + ".jobs");
    }
    for (int i = 0; i < 100; i++) {
      q.enqueue(keys("b" + i + "-", 1000));
    }
    ClaimedJob held = q.claim("w", 1, Duration.ofMinutes(1)).get(0);
    PgJobQueue.Statements sql = new PgJobQueue.Statements(SCHEMA.quoted(), Duration.ofMillis(100));
    for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
      List<String> plans = new ArrayList<>();
      try (Connection raw = TestSchema.raw(); Statement st = raw.createStatement()) {
        st.execute("LOAD 'auto_explain'");
        st.execute("SET auto_explain.log_min_duration = 0");
        st.execute("SET auto_explain.log_nested_statements = on");
        st.execute("SET auto_explain.log_level = notice");
        st.execute("SET client_min_messages = notice");
        st.execute("SET plan_cache_mode = " + mode);
        String[] keys = new String[256];
        Long[] tokens = new Long[256];
        for (int i = 0; i < keys.length; i++) {
          keys[i] = "b0-" + i;
          tokens[i] = 1L; // no such attempt: the plans are what is looked at, nothing is changed
        }
        keys[0] = held.key();
        tokens[0] = held.token() + 1;
        plans.addAll(run(raw, sql.finishAll, "stats", raw.createArrayOf("text", keys),
            raw.createArrayOf("bigint", tokens)));
        plans.addAll(run(raw, sql.giveBack, "stats", "w", raw.createArrayOf("text", keys),
            raw.createArrayOf("bigint", tokens)));
        plans.addAll(run(raw, sql.finish, "stats", held.key(), held.token() + 1));
        plans.addAll(run(raw, sql.extend, 60_000_000L, "stats", held.key(), held.token() + 1));
        plans.addAll(run(raw, sql.fail, 1_000_000L, "no", "stats", held.key(), held.token() + 1));
        plans.addAll(run(raw, sql.claim, "stats", "w2", 10, 60_000_000L, 100_000L));
      }
      List<String> updates = plans.stream().filter(p -> p.contains("Update on jobs")).toList();
      assertThat(updates).as("%s: the updates' plans among %s", mode, plans).hasSizeGreaterThanOrEqualTo(6);
      for (String plan : updates) {
        assertThat(plan).as(mode).containsAnyOf("Index Scan using jobs_pkey", "Tid Scan on jobs")
            .doesNotContain("Seq Scan on jobs", "Bitmap Heap Scan on jobs", "jobs_updated");
      }
    }
    assertThat(q.finish(held.key(), held.token())).isEqualTo(JobOutcome.FINISHED);
  }

  private static List<NewJob> keys(String prefix, int n) {
    List<NewJob> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      jobs.add(NewJob.of(prefix + i));
    }
    return jobs;
  }

  /** Runs {@code sql} with {@code args} on {@code c}, returns the notices it raised (auto_explain's plans). */
  private static List<String> run(Connection c, String sql, Object... args) throws SQLException {
    List<String> notices = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      ps.execute();
      for (SQLWarning w = ps.getWarnings(); w != null; w = w.getNextWarning()) {
        notices.add(w.getMessage());
      }
    }
    return notices;
  }

  /**
   * A finish that waits for the row of its job while an extend of the same attempt (same token) commits still
   * finishes it: PostgreSQL re-checks the waiting update against the row the extend left. Found when the batched
   * finish briefly looked rows up by row id, which PostgreSQL does not follow to the new row: the finish was refused
   * and the job would have run again after its lock expired.
   */
  @Test
  void aFinishWaitingForAnExtendOfTheSameAttemptFinishes() throws Exception {
    JobQueue q = STORES.store().jobQueue("extend-race");
    q.enqueue(List.of(NewJob.of("one"), NewJob.of("all")));
    for (ClaimedJob c : q.claim("w", 2, Duration.ofMinutes(1))) {
      try (Connection t1 = TestSchema.raw()) {
        t1.setAutoCommit(false);
        try (Statement st = t1.createStatement()) {
          st.executeUpdate("UPDATE " + SCHEMA.quoted() + ".jobs SET due_at = due_at + interval '1 minute' "
              + "WHERE queue = 'extend-race' AND key = '" + c.key() + "'");
        }
        JobQueue peer = STORES.peer().jobQueue("extend-race");
        CompletableFuture<JobOutcome> finish = CompletableFuture.supplyAsync(() -> c.key().equals("one")
            ? peer.finish(c.key(), c.token())
            : peer.finishAll(Map.of(c.key(), c.token())).get(c.key()));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> SCHEMA.lockWaiters() > 0);
        t1.commit();
        assertThat(finish.get(10, TimeUnit.SECONDS)).as(c.key()).isEqualTo(JobOutcome.FINISHED);
      }
      assertThat(q.get(c.key())).get().extracting(j -> j.status()).isEqualTo(JobStatus.FINISHED);
    }
  }
}

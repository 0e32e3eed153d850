package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.StoreClock;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobQueueContractTest;
import io.allot.store.jobs.NewJob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
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
}

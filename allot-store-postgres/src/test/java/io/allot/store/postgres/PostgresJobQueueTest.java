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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The job-queue contract on PostgreSQL (a schema of its own), two stores as two processes would have: claims go
 * through one, completions through the other. Plus what SQL users see in the table.
 */
class PostgresJobQueueTest extends JobQueueContractTest {
  private static final TestSchema SCHEMA = TestSchema.random();
  private static PostgresStore store;
  private static PostgresStore peer;
  private static boolean flip;

  @BeforeAll
  static void connect() {
    store = SCHEMA.connect();
    peer = SCHEMA.connect();
  }

  @AfterAll
  static void disconnect() {
    if (store != null) {
      store.close();
      peer.close();
    }
    SCHEMA.close();
  }

  @Override
  protected JobQueue queue(String name) {
    flip = !flip;
    return (flip ? store : peer).jobQueue(name);
  }

  @Override
  protected StoreClock clock() {
    return store.clock();
  }

  @Test
  void sqlUsersSeeTheStatusCodesInTheJobsTable() throws SQLException {
    JobQueue q = store.jobQueue("sql-visible");
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
}

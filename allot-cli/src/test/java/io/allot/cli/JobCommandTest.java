package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.postgres.PostgresStore;
import io.allot.testkit.PostgresSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code allot job enqueue|stats|retry|ignore} against PostgreSQL (a schema of the test's own). */
class JobCommandTest {
  @AutoClose // drops the schema after each test
  private final PostgresSchema schema = PostgresSchema.create("allot_qc");
  @TempDir Path dir;

  @Test
  void enqueueStatsRetryAndIgnore() throws Exception {
    Path f = dir.resolve("jobs.tsv");
    Files.writeString(f, "a\nb\t{\"to\":\"x\"}\nc\n");
    CliRun r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "mail", "--file", f.toString(),
        "--max-attempts", "2");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("enqueued 3 of 3 jobs into queue mail (0 already there)");
    r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "mail", "--file", f.toString());
    assertThat(r.out()).contains("enqueued 0 of 3 jobs into queue mail (3 already there)");

    try (PostgresStore s = PostgresStore.connect(schema.uri())) {
      JobQueue q = s.jobQueue("mail");
      assertThat(q.get("b").orElseThrow().data()).isEqualTo("{\"to\":\"x\"}");
      assertThat(q.get("b").orElseThrow().maxAttempts()).isEqualTo(2);
      ClaimedJob c = q.claim("w", 1, Duration.ofMinutes(1)).get(0);
      q.fail(c.key(), c.token(), "smtp said no", Duration.ofHours(1));
    }
    r = CliRun.of("job", "stats", "-store", schema.uri(), "--queue", "mail");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("todo\\s+\\( 0\\)\\s+2").containsPattern("failed\\s+\\(20\\)\\s+1")
        .contains("smtp said no").contains("total");

    r = CliRun.of("job", "ignore", "-store", schema.uri(), "--queue", "mail", "a", "c");
    assertThat(r.out()).contains("ignored 2 of 2 jobs in queue mail");
    r = CliRun.of("job", "retry", "-store", schema.uri(), "--queue", "mail", "a", "missing");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).contains("retried 1 of 2 jobs");
    assertThat(r.err()).contains("not in queue mail: missing"); // issue 18: the missing key is named
    try (PostgresStore s = PostgresStore.connect(schema.uri())) {
      assertThat(s.jobQueue("mail").get("a").orElseThrow().status()).isEqualTo(JobStatus.TODO);
      assertThat(s.jobQueue("mail").get("c").orElseThrow().status()).isEqualTo(JobStatus.IGNORED);
      // the event history names each job changed by hand, and not the missing one
      assertThat(s.events().query(io.allot.store.events.EventQuery.all()).events())
          .extracting(e -> e.kind().wire() + " " + e.subject() + " " + e.actor().startsWith("cli:") + " " + e.pool())
          .containsExactly("job-ignored mail/a true null", "job-ignored mail/c true null",
              "job-retried mail/a true null");
    }
  }

  /** Issue 18: ignoring a finished job turned it ignored without a word; now refused, naming it, nothing changed. */
  @Test
  void aFinishedJobIsNotIgnoredAndNothingElseChangesEither() throws Exception {
    Path f = dir.resolve("jobs.tsv");
    Files.writeString(f, "done\nwaiting\n");
    assertThat(CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "q", "--file", f.toString()).code())
        .isZero();
    try (PostgresStore s = PostgresStore.connect(schema.uri())) {
      ClaimedJob c = s.jobQueue("q").claim("w", 1, Duration.ofMinutes(1)).get(0);
      assertThat(c.key()).isEqualTo("done");
      s.jobQueue("q").finish(c.key(), c.token());
    }
    CliRun r = CliRun.of("job", "ignore", "-store", schema.uri(), "--queue", "q", "waiting", "done");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("finished, so not ignored: done").contains("nothing changed");
    try (PostgresStore s = PostgresStore.connect(schema.uri())) {
      assertThat(s.jobQueue("q").get("done").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
      assertThat(s.jobQueue("q").get("waiting").orElseThrow().status()).isEqualTo(JobStatus.TODO);
    }
  }

  /** Issue 18: a file that is not there printed java.nio.file.NoSuchFileException and exit 1. */
  /**
   * Issue 18: stats of a queue that never had a job printed zeros, exit 0. A queue holding no job and no rate limit
   * is unknown: one line naming it, exit 2; a rate limit alone makes it known.
   */
  @Test
  void statsOfAQueueWithNoJobAndNoRateLimitIsOneLineNamingItExit2() {
    CliRun r = CliRun.of("job", "stats", "-store", schema.uri(), "--queue", "nosuchqueue");
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip().lines()).singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("allot: --queue nosuchqueue: no such queue").contains("no job and no rate limit");
    try (PostgresStore s = PostgresStore.connect(schema.uri())) {
      s.jobQueue("limited").limitRate(5);
    }
    r = CliRun.of("job", "stats", "-store", schema.uri(), "--queue", "limited");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("rate limit: 5.0 jobs/s").containsPattern("total\\s+0");
  }

  @Test
  void aMissingFileIsOneLineNamingItAndNothingIsEnqueued() {
    String missing = dir.resolve("nonexistent.tsv").toString();
    CliRun r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "q", "--file", missing);
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--file " + missing + ": no such file; nothing enqueued")
        .doesNotContain("Exception");
  }

  @Test
  void badInputIsNamedAndNothingIsEnqueued() throws Exception {
    Path f = dir.resolve("bad.tsv");
    Files.writeString(f, "ok1\n\nok2\n");
    CliRun r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "q", "--file", f.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("line 2: job key must be non-empty").contains("nothing enqueued");

    Files.writeString(f, "ok1\n" + "k".repeat(1025) + "\n");
    r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "q", "--file", f.toString());
    assertThat(r.err()).contains("line 2: job key 'kkkk").contains("1025 bytes; at most 1024");

    Files.write(f, new byte[] {'o', 'k', '\n', (byte) 0xff, (byte) 0xfe, '\n'});
    r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "q", "--file", f.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("not valid UTF-8");

    Files.writeString(f, "x\ty\nx\tz\n", StandardCharsets.UTF_8);
    r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "q", "--file", f.toString());
    assertThat(r.err()).contains("line 2: job key 'x' is also on line 1");

    r = CliRun.of("job", "enqueue", "-store", schema.uri(), "--queue", "bad\tname", "--file", f.toString());
    assertThat(r.code()).isEqualTo(2);

    r = CliRun.of("job", "stats", "-store", schema.uri(), "--queue", "q".repeat(300));
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--queue: queue name").contains("at most 200");

    try (PostgresStore s = PostgresStore.connect(schema.uri())) {
      assertThat(s.jobQueue("q").stats(0).total()).isZero();
    }
  }
}

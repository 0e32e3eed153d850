package io.allot.store.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.StoreClock;
import io.allot.store.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every store's {@link JobQueue} must have. Extend it and provide {@link #queue(String)} and
 * {@link #clock()}. Every test works on a queue with a fresh random name. Lock expiry is real store time: the tests
 * use short locks and wait on conditions, never on sleeps.
 */
public abstract class JobQueueContractTest {
  /** Generous enough for a loaded 2-core CI machine; conditions are polled, never slept on. */
  protected static final Duration PATIENCE = Duration.ofSeconds(10);
  private static final Duration LONG = Duration.ofMinutes(5);

  private JobQueue q;

  /** The queue {@code name} of the store under test. */
  protected abstract JobQueue queue(String name);

  /** The store's clock. */
  protected abstract StoreClock clock();

  @BeforeEach
  void newQueue() {
    q = queue("q-" + UUID.randomUUID().toString().substring(0, 8));
  }

  private static List<NewJob> jobs(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> NewJob.of(prefix + i, "data-" + i)).toList();
  }

  @Test
  void enqueueIsIdempotentOnKeyAndLeavesExistingJobsAlone() {
    assertThat(q.enqueue(jobs("k", 3))).isEqualTo(3);
    ClaimedJob c = q.claim("w1", 1, LONG).get(0);
    assertThat(q.enqueue(List.of(NewJob.of(c.key(), "other"), NewJob.of("k9")))).isEqualTo(1);
    Job t = q.get(c.key()).orElseThrow();
    assertThat(t.status()).isEqualTo(JobStatus.PROCESSING);
    assertThat(t.data()).isEqualTo(c.data());
    assertThat(q.enqueue(NewJob.of("k9"))).isFalse();
    assertThat(q.stats(0).total()).isEqualTo(4);
  }

  @Test
  void aNewJobIsTodoWithItsFields() {
    q.enqueue(NewJob.of("a", "{\"x\":1}").withPriority(3).withMaxAttempts(7));
    Job t = q.get("a").orElseThrow();
    assertThat(t.status()).isEqualTo(JobStatus.TODO);
    assertThat(t.status().code()).isZero();
    assertThat(t.data()).isEqualTo("{\"x\":1}");
    assertThat(t.priority()).isEqualTo(3);
    assertThat(t.maxAttempts()).isEqualTo(7);
    assertThat(t.attempts()).isZero();
    assertThat(t.token()).isZero();
    assertThat(t.lockedBy()).isEmpty();
    assertThat(t.lastError()).isEmpty();
    assertThat(q.get("nope")).isEmpty();
  }

  @Test
  void claimTakesHighestPriorityFirstThenEarliestAndAtMostMax() {
    q.enqueue(List.of(NewJob.of("low"), NewJob.of("high").withPriority(5), NewJob.of("mid").withPriority(1)));
    List<ClaimedJob> first = q.claim("w", 2, LONG);
    assertThat(first).extracting(ClaimedJob::key).containsExactly("high", "mid");
    assertThat(q.claim("w", 10, LONG)).extracting(ClaimedJob::key).containsExactly("low");
    assertThat(q.claim("w", 10, LONG)).isEmpty();
  }

  @Test
  void aDelayedJobWaitsForItsTime() {
    // read before the enqueue: a pause between the enqueue and a later read shortened the measured span (289 ms
    // under load in clean-clone CI on Redis Cluster)
    long enqueuedAt = clock().timeMillis();
    q.enqueue(NewJob.of("later").withDelay(Duration.ofMillis(300)));
    assertThat(q.claim("w", 10, LONG)).isEmpty();
    await().atMost(PATIENCE).until(() -> !q.claim("w", 10, LONG).isEmpty());
    assertThat(clock().timeMillis() - enqueuedAt).isGreaterThanOrEqualTo(300);
  }

  @Test
  void aClaimedJobCarriesWhenItBecameRunnable() {
    long before = clock().timeMillis();
    q.enqueue(NewJob.of("now"));
    q.enqueue(NewJob.of("later").withDelay(Duration.ofMillis(300)));
    long after = clock().timeMillis();
    ClaimedJob now = q.claim("w", 10, LONG).get(0);
    assertThat(now.key()).isEqualTo("now");
    assertThat(now.dueAtMillis()).as("its enqueue time").isBetween(before - 1, after + 1);
    assertThat(now.dueAtMillis()).as("not after its claim")
        .isLessThanOrEqualTo(now.lockedUntilMillis() - LONG.toMillis() + 1);
    java.util.concurrent.atomic.AtomicReference<ClaimedJob> later = new java.util.concurrent.atomic.AtomicReference<>();
    await().atMost(PATIENCE).until(() -> {
      q.claim("w", 10, LONG).forEach(later::set);
      return later.get() != null;
    });
    assertThat(later.get().dueAtMillis()).as("its enqueue time plus its delay")
        .isBetween(before + 300 - 1, after + 300 + 1);
    assertThat(later.get().dueAtMillis()).isLessThanOrEqualTo(later.get().lockedUntilMillis() - LONG.toMillis() + 1);
  }

  @Test
  void finishNeedsTheTokenThatHoldsTheLock() {
    q.enqueue(NewJob.of("a"));
    ClaimedJob c = q.claim("w", 1, LONG).get(0);
    assertThat(c.attempt()).isEqualTo(1);
    assertThat(q.finish("a", c.token() - 1)).isEqualTo(JobOutcome.REJECTED);
    assertThat(q.finish("a", c.token() + 1)).isEqualTo(JobOutcome.REJECTED);
    assertThat(q.get("a").orElseThrow().status()).isEqualTo(JobStatus.PROCESSING);
    assertThat(q.finish("a", c.token())).isEqualTo(JobOutcome.FINISHED);
    assertThat(q.get("a").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
    assertThat(q.finish("a", c.token())).isEqualTo(JobOutcome.REJECTED);
    assertThat(q.fail("a", c.token(), "late", Duration.ZERO)).isEqualTo(JobOutcome.REJECTED);
    assertThat(q.get("a").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
    assertThat(q.finish("missing", 1)).isEqualTo(JobOutcome.REJECTED);
  }

  @Test
  void finishAllAcceptsEachHeldJobOnItsOwn() {
    q.enqueue(jobs("k", 4));
    List<ClaimedJob> cs = q.claim("w", 3, LONG);
    java.util.Map<String, Long> report = new java.util.LinkedHashMap<>();
    report.put(cs.get(0).key(), cs.get(0).token());
    report.put(cs.get(1).key(), cs.get(1).token() + 1); // not its token
    report.put(cs.get(2).key(), cs.get(2).token());
    report.put("k3", 1L); // never claimed
    report.put("missing", 1L);
    java.util.Map<String, JobOutcome> out = q.finishAll(report);
    assertThat(out).containsEntry(cs.get(0).key(), JobOutcome.FINISHED).containsEntry(cs.get(1).key(), JobOutcome.REJECTED)
        .containsEntry(cs.get(2).key(), JobOutcome.FINISHED).containsEntry("k3", JobOutcome.REJECTED)
        .containsEntry("missing", JobOutcome.REJECTED).hasSize(5);
    assertThat(q.get(cs.get(1).key()).orElseThrow().status()).isEqualTo(JobStatus.PROCESSING);
    assertThat(q.stats(0).count(JobStatus.FINISHED)).isEqualTo(2);
    assertThat(q.finishAll(java.util.Map.of(cs.get(0).key(), cs.get(0).token())))
        .containsEntry(cs.get(0).key(), JobOutcome.REJECTED);
    assertThat(q.finishAll(java.util.Map.of())).isEmpty();
  }

  @Test
  void tokensAreNeverBelowTheStoreTimeInMicroseconds() {
    q.enqueue(NewJob.of("a"));
    long before = clock().timeMillis();
    ClaimedJob c = q.claim("w", 1, LONG).get(0);
    assertThat(c.token()).isGreaterThanOrEqualTo(before * 1000);
    assertThat(q.get("a").orElseThrow().token()).isEqualTo(c.token());
    assertThat(q.get("a").orElseThrow().lockedBy()).isEqualTo("w");
  }

  @Test
  void aFailureSchedulesARetryAfterTheBackoffAndTheLastOneIgnoresTheJob() {
    q.enqueue(NewJob.of("a").withMaxAttempts(2));
    ClaimedJob c1 = q.claim("w", 1, LONG).get(0);
    assertThat(q.fail("a", c1.token(), "boom 1", Duration.ofMillis(200))).isEqualTo(JobOutcome.RETRY_SCHEDULED);
    Job failed = q.get("a").orElseThrow();
    assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
    assertThat(failed.status().code()).isEqualTo(20);
    assertThat(failed.lastError()).isEqualTo("boom 1");
    assertThat(q.claim("w", 1, LONG)).isEmpty();
    List<ClaimedJob> again = new ArrayList<>();
    await().atMost(PATIENCE).until(() -> again.addAll(q.claim("w2", 1, LONG)));
    ClaimedJob c2 = again.get(0);
    assertThat(c2.attempt()).isEqualTo(2);
    assertThat(c2.lastAttempt()).isTrue();
    assertThat(c2.token()).isGreaterThan(c1.token());
    assertThat(q.fail("a", c2.token(), "boom 2", Duration.ZERO)).isEqualTo(JobOutcome.IGNORED);
    Job ignored = q.get("a").orElseThrow();
    assertThat(ignored.status()).isEqualTo(JobStatus.IGNORED);
    assertThat(ignored.status().code()).isEqualTo(70);
    assertThat(ignored.attempts()).isEqualTo(2);
    assertThat(ignored.lastError()).isEqualTo("boom 2");
    assertThat(q.claim("w", 1, LONG)).isEmpty();
  }

  @Test
  void anExpiredLockMakesTheJobRunnableAgainAndFencesTheOldToken() {
    q.enqueue(NewJob.of("a"));
    ClaimedJob old = q.claim("stalled", 1, Duration.ofMillis(150)).get(0);
    assertThat(q.claim("other", 1, LONG)).isEmpty();
    List<ClaimedJob> taken = new ArrayList<>();
    await().atMost(PATIENCE).until(() -> taken.addAll(q.claim("other", 1, LONG)));
    ClaimedJob now = taken.get(0);
    assertThat(now.token()).isGreaterThan(old.token());
    assertThat(now.attempt()).isEqualTo(2);
    // the stalled worker wakes up: everything it tries is refused
    assertThat(q.extend("a", old.token(), LONG)).isFalse();
    assertThat(q.finish("a", old.token())).isEqualTo(JobOutcome.REJECTED);
    assertThat(q.fail("a", old.token(), "late", Duration.ZERO)).isEqualTo(JobOutcome.REJECTED);
    assertThat(q.get("a").orElseThrow().lockedBy()).isEqualTo("other");
    assertThat(q.finish("a", now.token())).isEqualTo(JobOutcome.FINISHED);
  }

  @Test
  void aLockIsNotTakenOverBeforeItExpiredByTheClockMargin() {
    q.enqueue(NewJob.of("a"));
    ClaimedJob c = q.claim("w", 1, Duration.ofMillis(100)).get(0);
    List<ClaimedJob> taken = new ArrayList<>();
    await().atMost(PATIENCE).until(() -> taken.addAll(q.claim("other", 1, LONG)));
    long takenAt = clock().timeMillis();
    // the first lock ran out at c.lockedUntilMillis(); the store's clock margin (>= 0) comes on top
    assertThat(takenAt).isGreaterThanOrEqualTo(c.lockedUntilMillis());
  }

  @Test
  void extendKeepsTheLock() {
    q.enqueue(NewJob.of("a"));
    ClaimedJob c = q.claim("w", 1, Duration.ofMillis(300)).get(0);
    long until = c.lockedUntilMillis();
    // keep extending past the first lock's end (plus margin): nobody else gets the job meanwhile
    while (clock().timeMillis() < until + 600) {
      assertThat(q.extend("a", c.token(), Duration.ofMillis(300))).isTrue();
      assertThat(q.claim("other", 1, LONG)).isEmpty();
    }
    assertThat(q.finish("a", c.token())).isEqualTo(JobOutcome.FINISHED);
  }

  @Test
  void anExpiredLockOnTheLastAttemptIgnoresTheJobInsteadOfRunningItAgain() {
    q.enqueue(NewJob.of("a").withMaxAttempts(1));
    q.enqueue(NewJob.of("b"));
    ClaimedJob c = q.claim("w", 1, Duration.ofMillis(100)).get(0);
    assertThat(c.key()).isEqualTo("a");
    q.claim("w", 1, LONG); // b
    await().atMost(PATIENCE).until(() -> {
      q.claim("other", 1, LONG);
      return q.get("a").orElseThrow().status() == JobStatus.IGNORED;
    });
    Job t = q.get("a").orElseThrow();
    assertThat(t.attempts()).isEqualTo(1);
    assertThat(t.lastError()).contains("expired");
    assertThat(q.finish("a", c.token())).isEqualTo(JobOutcome.REJECTED);
  }

  @Test
  void retryAndIgnoreByHandTakeTheLockAway() {
    q.enqueue(List.of(NewJob.of("a").withMaxAttempts(1), NewJob.of("b")));
    ClaimedJob a = q.claim("w", 1, LONG).get(0);
    assertThat(q.fail("a", a.token(), "bad", Duration.ZERO)).isEqualTo(JobOutcome.IGNORED);
    assertThat(q.retry(List.of("a", "missing"))).isEqualTo(1);
    Job back = q.get("a").orElseThrow();
    assertThat(back.status()).isEqualTo(JobStatus.TODO);
    assertThat(back.attempts()).isZero();
    ClaimedJob b = q.claim("w", 2, LONG).stream().filter(c -> c.key().equals("b")).findFirst().orElseThrow();
    assertThat(q.ignore(List.of("b"))).isEqualTo(1);
    assertThat(q.finish("b", b.token())).isEqualTo(JobOutcome.REJECTED);
    assertThat(q.get("b").orElseThrow().status()).isEqualTo(JobStatus.IGNORED);
  }

  /** Issue 18: ignoring a finished job turned it ignored (the CLI checked first, a read-then-write race). */
  @Test
  void ignoreLeavesAFinishedJobFinished() {
    q.enqueue(List.of(NewJob.of("done"), NewJob.of("waiting")));
    ClaimedJob c = q.claim("w", 2, LONG).stream().filter(j -> j.key().equals("done")).findFirst().orElseThrow();
    assertThat(q.finish("done", c.token())).isEqualTo(JobOutcome.FINISHED);
    assertThat(q.ignore(List.of("done", "waiting", "missing"))).isEqualTo(1);
    assertThat(q.get("done").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
    assertThat(q.get("waiting").orElseThrow().status()).isEqualTo(JobStatus.IGNORED);
    assertThat(q.ignore(List.of("waiting"))).isEqualTo(1); // ignored already: it stays so
    assertThat(q.stats(0).count(JobStatus.FINISHED)).isEqualTo(1);
    assertThat(q.stats(0).count(JobStatus.IGNORED)).isEqualTo(1);
  }

  /** Issue 18, item 3: a worker that shuts down gives back what it claimed, without using the attempts. */
  @Test
  void giveBackMakesHeldJobsRunnableNowWithoutUsingTheirAttempt() {
    q.enqueue(List.of(NewJob.of("a").withMaxAttempts(1), NewJob.of("b").withMaxAttempts(2)));
    ClaimedJob b1 = q.claim("w", 2, LONG).stream().filter(j -> j.key().equals("b")).findFirst().orElseThrow();
    assertThat(q.fail("b", b1.token(), "boom", Duration.ZERO)).isEqualTo(JobOutcome.RETRY_SCHEDULED);
    ClaimedJob b2 = q.claim("w", 1, LONG).get(0);
    assertThat(b2.attempt()).isEqualTo(2);
    long a = q.get("a").orElseThrow().token();
    q.enqueue(NewJob.of("c"));
    ClaimedJob c = q.claim("other", 1, LONG).get(0);
    java.util.Map<String, Long> tokens = new java.util.LinkedHashMap<>();
    tokens.put("a", a);
    tokens.put("b", b2.token());
    tokens.put("c", c.token()); // held under that token, but by another worker
    tokens.put("missing", 1L);
    assertThat(q.giveBack("w", tokens)).isEqualTo(2);
    Job ja = q.get("a").orElseThrow();
    assertThat(ja.status()).isEqualTo(JobStatus.TODO);
    assertThat(ja.attempts()).isZero();
    assertThat(ja.token()).isEqualTo(a);
    Job jb = q.get("b").orElseThrow();
    assertThat(jb.status()).isEqualTo(JobStatus.TODO);
    assertThat(jb.attempts()).isEqualTo(1);
    assertThat(jb.lastError()).isEqualTo("boom");
    assertThat(q.get("c").orElseThrow().status()).isEqualTo(JobStatus.PROCESSING);
    assertThat(q.finish("a", a)).isEqualTo(JobOutcome.REJECTED); // the lock is gone
    assertThat(q.stats(0).count(JobStatus.TODO)).isEqualTo(2);
    // runnable now, on the attempt given back, with a larger token
    List<ClaimedJob> again = q.claim("w2", 2, LONG);
    assertThat(again).extracting(ClaimedJob::key, ClaimedJob::attempt)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("a", 1), org.assertj.core.groups.Tuple.tuple("b", 2));
    assertThat(again).allSatisfy(j -> assertThat(j.token()).isGreaterThan(tokens.get(j.key())));
    // a stale token (the job was claimed again since) changes nothing
    assertThat(q.giveBack("w", java.util.Map.of("a", a, "b", b2.token()))).isZero();
    assertThat(q.giveBack("w2", java.util.Map.of("a", a))).isZero();
    assertThat(q.get("a").orElseThrow().status()).isEqualTo(JobStatus.PROCESSING);
    assertThat(q.get("a").orElseThrow().attempts()).isEqualTo(1);
    assertThat(q.giveBack("w", java.util.Map.of())).isZero();
  }

  @Test
  void giveBackRefusesBadInputNamingItAndChangesNothing() {
    q.enqueue(NewJob.of("a"));
    ClaimedJob c = q.claim("w", 1, LONG).get(0);
    java.util.Map<String, Long> tooMany = new java.util.HashMap<>();
    IntStream.rangeClosed(0, JobLimits.MAX_BATCH).forEach(i -> tooMany.put("k" + i, 1L));
    tooMany.put("a", c.token());
    java.util.Map<String, Long> nullToken = new java.util.HashMap<>(java.util.Map.of("a", c.token()));
    nullToken.put("b", null);
    assertThatThrownBy(() -> q.giveBack("", java.util.Map.of("a", c.token()))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker");
    assertThatThrownBy(() -> q.giveBack(null, java.util.Map.of("a", c.token()))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker");
    assertThatThrownBy(() -> q.giveBack("w", tooMany)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("giveBack").hasMessageContaining("10000");
    assertThatThrownBy(() -> q.giveBack("w", nullToken)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token of job 'b'");
    assertThatThrownBy(() -> q.giveBack("w", java.util.Map.of("", 1L, "a", c.token())))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job key must be non-empty");
    Job a = q.get("a").orElseThrow();
    assertThat(a.status()).isEqualTo(JobStatus.PROCESSING);
    assertThat(a.attempts()).isEqualTo(1);
    assertThat(a.token()).isEqualTo(c.token());
  }

  @Test
  void concurrentClaimsNeverHandOutAJobTwice() throws Exception {
    int n = 600;
    for (int i = 0; i < n; i += 200) {
      q.enqueue(jobs("k", n).subList(i, i + 200));
    }
    Set<String> claimed = ConcurrentHashMap.newKeySet();
    List<String> duplicates = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        String worker = "w" + w;
        fs.add(pool.submit(() -> {
          List<ClaimedJob> got;
          while (!(got = q.claim(worker, 7, LONG)).isEmpty()) {
            for (ClaimedJob c : got) {
              if (!claimed.add(c.key())) {
                duplicates.add(c.key());
              }
              assertThat(q.finish(c.key(), c.token())).isEqualTo(JobOutcome.FINISHED);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(duplicates).isEmpty();
    assertThat(claimed).hasSize(n);
    assertThat(q.stats(0).count(JobStatus.FINISHED)).isEqualTo(n);
  }

  @Test
  void theRateLimitHoldsForEveryClientOfTheQueue() {
    q.enqueue(jobs("k", 200));
    long start = clock().timeMillis(); // before the limit is set: a pause between the two would shorten the span
    q.limitRate(20);
    int got = 0;
    while (got < 10) {
      got += q.claim("w" + (got % 3), 50, LONG).size();
    }
    double seconds = (clock().timeMillis() - start) / 1000.0;
    // the bucket starts empty after limitRate and holds at most one second's worth (20): 10 permits need >= 0.5 s
    assertThat(seconds).isGreaterThanOrEqualTo(0.45);
    assertThat(q.stats(0).ratePerSecond()).isEqualTo(20.0);
    q.limitRate(0);
    assertThat(q.claim("w", 100, LONG)).hasSize(100);
  }

  /**
   * A claim the rate limit cut short says so ({@link ClaimedJobs#rateLimited()}); one that found nothing more
   * runnable does not, even with an empty bucket, nor does one that got all it asked for: the worker counts
   * rate-limit waits apart from an empty queue ({@code allot.jobs.rate.limited}).
   */
  @Test
  void aRateLimitedClaimSaysSoAndAnEmptyQueueDoesNot() {
    q.enqueue(jobs("k", 5));
    q.limitRate(1); // the bucket starts empty and holds at most one permit
    ClaimedJobs cut = q.claim("w", 5, LONG);
    assertThat(cut).hasSizeLessThanOrEqualTo(1);
    assertThat(cut.rateLimited()).as("5 runnable jobs, at most 1 permit: %s", cut).isTrue();
    q.limitRate(0);
    ClaimedJobs all = q.claim("w", 5, LONG);
    assertThat(all).hasSize(5 - cut.size());
    assertThat(all.rateLimited()).as("no limit").isFalse();
    ClaimedJobs none = q.claim("w", 5, LONG);
    assertThat(none).isEmpty();
    assertThat(none.rateLimited()).as("an empty queue without a limit").isFalse();
    q.limitRate(1); // an empty bucket again (for a second), and nothing runnable
    ClaimedJobs emptyQueue = q.claim("w", 5, LONG);
    assertThat(emptyQueue).isEmpty();
    assertThat(emptyQueue.rateLimited()).as("an empty queue with an empty bucket").isFalse();
    q.limitRate(0);
    q.enqueue(jobs("m", 2));
    ClaimedJobs asked = q.claim("w", 2, LONG);
    assertThat(asked).hasSize(2);
    assertThat(asked.rateLimited()).as("got all it asked for").isFalse();
  }

  /**
   * The rate limit holds for claimers in parallel (64 threads, each through the store under test's own clients, for
   * {@code allot.ratelimit.seconds}, 10 s by default): the bucket starts empty, refills at the rate and holds at most
   * one second of permits, so every claim of the run together takes at most {@code rate × elapsed + burst}. (The
   * PostgreSQL claim once read its clock before waiting for the bucket's row and then wrote that time back as the
   * refill time, so the next claimer refilled the same span again: 64 claimers took 7,313 jobs at 20/s in 10 s.)
   */
  @Test
  void theRateLimitHoldsForConcurrentClaimers() throws Exception {
    double rate = 20;
    int seconds = Integer.getInteger("allot.ratelimit.seconds", 10);
    q.enqueue(jobs("r", (int) (rate * seconds * 4)));
    String name = q.name();
    List<JobQueue> clients = IntStream.range(0, 4).mapToObj(i -> queue(name)).toList();
    AtomicLong claimed = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(64);
    long t0 = System.nanoTime();
    q.limitRate(rate);
    long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 64; t++) {
        JobQueue c = clients.get(t % clients.size());
        String worker = "w" + t;
        runs.add(pool.submit(() -> {
          while (System.nanoTime() - deadline < 0) {
            try {
              claimed.addAndGet(c.claim(worker, 5, LONG).size());
            } catch (StoreUnavailableException busy) {
              // 64 threads share a few connections: a claim that found none free claimed nothing; try again
            }
          }
          return null;
        }));
      }
      for (Future<?> f : runs) {
        f.get(seconds + 60L, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long bound = (long) Math.floor(rate * elapsed + Math.max(1, rate));
    assertThat(claimed.get()).as("jobs claimed at %s/s by 64 claimers in %.2f s (bound %d)", rate, elapsed, bound)
        .isLessThanOrEqualTo(bound)
        .isGreaterThanOrEqualTo((long) (rate * seconds / 2)); // and the limit does not starve them either
  }

  @Test
  void statsCountEveryStatusAndShowRecentFailures() {
    q.enqueue(List.of(NewJob.of("a"), NewJob.of("b").withMaxAttempts(1), NewJob.of("c"), NewJob.of("d"),
        NewJob.of("later").withDelay(Duration.ofHours(1))));
    List<ClaimedJob> cs = q.claim("w", 3, LONG);
    ClaimedJob a = cs.stream().filter(c -> c.key().equals("a")).findFirst().orElseThrow();
    ClaimedJob b = cs.stream().filter(c -> c.key().equals("b")).findFirst().orElseThrow();
    q.finish("a", a.token());
    q.fail("b", b.token(), "no such mailbox", Duration.ZERO);
    q.ignore(List.of("d"));
    QueueStats s = q.stats(10);
    assertThat(s.count(JobStatus.FINISHED)).isEqualTo(1);
    assertThat(s.count(JobStatus.IGNORED)).isEqualTo(2);
    assertThat(s.count(JobStatus.PROCESSING)).isEqualTo(1);
    assertThat(s.count(JobStatus.TODO)).isEqualTo(1);
    assertThat(s.count(JobStatus.FAILED)).isZero();
    assertThat(s.total()).isEqualTo(5);
    assertThat(s.oldestTodoMillis()).isPresent();
    assertThat(s.failures()).extracting(Job::key).containsExactlyInAnyOrder("b", "d");
    assertThat(s.failures()).filteredOn(t -> t.key().equals("b")).first()
        .satisfies(t -> assertThat(t.lastError()).isEqualTo("no such mailbox"));
    assertThat(q.stats(1).failures()).hasSize(1);
  }

  @Test
  void purgeDeletesOnlyFinalJobs() {
    q.enqueue(jobs("k", 3));
    List<ClaimedJob> cs = q.claim("w", 2, LONG);
    q.finish(cs.get(0).key(), cs.get(0).token());
    assertThat(q.purge(Duration.ZERO, 100)).isEqualTo(1);
    assertThat(q.get(cs.get(0).key())).isEmpty();
    assertThat(q.stats(0).total()).isEqualTo(2);
    assertThat(q.purge(Duration.ofHours(1), 100)).isZero();
  }

  @Test
  void badInputIsRefusedWithItsNameAndChangesNothing() {
    assertThatThrownBy(() -> NewJob.of("")).hasMessageContaining("job key must be non-empty");
    assertThatThrownBy(() -> NewJob.of("x".repeat(1025))).hasMessageContaining("1025 bytes; at most 1024");
    assertThatThrownBy(() -> NewJob.of("bad\uD800key")).hasMessageContaining("not valid UTF-8");
    assertThatThrownBy(() -> NewJob.of("k", "d\uDC00")).hasMessageContaining("data of job 'k'")
        .hasMessageContaining("UTF-8");
    assertThatThrownBy(() -> NewJob.of("k", "x".repeat(JobLimits.MAX_DATA_BYTES + 1)))
        .hasMessageContaining("data of job 'k' is 1048577 bytes");
    assertThatThrownBy(() -> NewJob.of("k").withMaxAttempts(0)).hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> queue("")).hasMessageContaining("queue name");
    assertThatThrownBy(() -> queue("q".repeat(201))).hasMessageContaining("queue name");
    assertThatThrownBy(() -> queue("a\nb")).hasMessageContaining("control character");
    // one name rule on every store (a space or a slash was accepted by some stores and not by others)
    assertThatThrownBy(() -> queue("sp ace/x")).hasMessageContaining("queue name 'sp ace/x'").hasMessageContaining("' '");
    assertThatThrownBy(() -> queue("{x}")).hasMessageContaining("'{'");
    assertThatThrownBy(() -> queue("ümlaut")).hasMessageContaining("'ü'");
    assertThat(queue("app:billing.invoices_v2-eu").name()).isEqualTo("app:billing.invoices_v2-eu");
    assertThatThrownBy(() -> q.enqueue(List.of(NewJob.of("a"), NewJob.of("b"), NewJob.of("a"))))
        .hasMessageContaining("'a' appears twice");
    assertThatThrownBy(() -> q.claim("", 1, LONG)).hasMessageContaining("worker");
    assertThatThrownBy(() -> q.claim("w", 0, LONG)).hasMessageContaining("max must be in [1, 10000]");
    assertThatThrownBy(() -> q.claim("w", 1, Duration.ZERO)).hasMessageContaining("lockTtl");
    assertThatThrownBy(() -> q.limitRate(-1)).hasMessageContaining("rate limit");
    assertThatThrownBy(() -> q.limitRate(Double.NaN)).hasMessageContaining("rate limit");
    assertThat(q.stats(0).total()).isZero();
  }

  @Test
  void unusualKeysAndDataRoundTrip() {
    Set<String> keys = new HashSet<>(List.of("a:b:c", "{slot}", "ключ", "emoji \uD83D\uDE00", "tab\tkey", "'quote\"",
        "x".repeat(1024)));
    List<NewJob> ts = keys.stream().map(k -> NewJob.of(k, "payload of " + k + " \uD83D\uDE00\n")).toList();
    assertThat(q.enqueue(ts)).isEqualTo(keys.size());
    List<ClaimedJob> cs = q.claim("w", 100, LONG);
    assertThat(cs).extracting(ClaimedJob::key).containsExactlyInAnyOrderElementsOf(keys);
    for (ClaimedJob c : cs) {
      assertThat(c.data()).isEqualTo("payload of " + c.key() + " \uD83D\uDE00\n");
      assertThat(q.finish(c.key(), c.token())).isEqualTo(JobOutcome.FINISHED);
    }
  }
}

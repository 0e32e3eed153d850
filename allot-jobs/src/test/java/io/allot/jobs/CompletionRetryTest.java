package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.jobs.QueueStats;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A worker's reports against a store that times out: retried, an applied-but-unacknowledged one recognised, and one
 * the store never answered in time is {@link AttemptOutcome#UNKNOWN}. ({@link DispatcherReportsTest}: the same on a
 * dispatcher.)
 */
class CompletionRetryTest {

  /** A queue whose finish/fail time out: {@code before} of them before reaching the store, {@code after} after it. */
  static class FlakyQueue implements JobQueue {
    final JobQueue d;
    final AtomicInteger before = new AtomicInteger();
    final AtomicInteger after = new AtomicInteger();

    FlakyQueue(JobQueue d) {
      this.d = d;
    }

    private <T> T flaky(java.util.function.Supplier<T> call) {
      if (before.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new StoreUnavailableException("test: timed out before the store");
      }
      T r = call.get();
      if (after.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new StoreUnavailableException("test: timed out after the store applied it");
      }
      return r;
    }

    @Override public String name() { return d.name(); }
    @Override public int enqueue(Collection<NewJob> jobs) { return d.enqueue(jobs); }
    @Override public io.allot.store.jobs.ClaimedJobs claim(String w, int max, Duration ttl) { return d.claim(w, max, ttl); }
    @Override public boolean extend(String k, long t, Duration ttl) { return d.extend(k, t, ttl); }
    @Override public JobOutcome finish(String k, long t) { return flaky(() -> d.finish(k, t)); }
    @Override public java.util.Map<String, JobOutcome> finishAll(java.util.Map<String, Long> tokens) {
      return flaky(() -> d.finishAll(tokens));
    }
    @Override public JobOutcome fail(String k, long t, String e, Duration b) { return flaky(() -> d.fail(k, t, e, b)); }
    @Override public Optional<Job> get(String k) { return d.get(k); }
    @Override public int retry(Collection<String> keys) { return d.retry(keys); }
    @Override public int ignore(Collection<String> keys) { return d.ignore(keys); }
    @Override public int giveBack(String w, java.util.Map<String, Long> tokens) { return d.giveBack(w, tokens); }
    @Override public void limitRate(double r) { d.limitRate(r); }
    @Override public QueueStats stats(int f) { return d.stats(f); }
    @Override public int purge(Duration age, int max) { return d.purge(age, max); }
  }

  @Test
  void aFinishThatTimedOutBeforeTheStoreIsRetried() {
    try (MemoryStore store = new MemoryStore()) {
      FlakyQueue q = new FlakyQueue(store.jobQueue("flaky"));
      q.enqueue(List.of(NewJob.of("a")));
      q.before.set(2);
      ConcurrentHashMap<String, AttemptOutcome> ends = new ConcurrentHashMap<>();
      try (JobWorker w = JobWorker.builder(q, t -> { }).listener(e -> ends.put(e.key(), e.outcome()))
          .pollInterval(Duration.ofMillis(10)).build().start()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.containsKey("a"));
      }
      assertThat(ends).containsEntry("a", AttemptOutcome.FINISHED);
      assertThat(q.get("a").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
    }
  }

  @Test
  void aFinishAppliedButUnacknowledgedIsRecognisedNotReportedAsRejected() {
    try (MemoryStore store = new MemoryStore()) {
      FlakyQueue q = new FlakyQueue(store.jobQueue("flaky"));
      q.enqueue(List.of(NewJob.of("a")));
      q.after.set(1); // applied, then the answer is lost; the retry is refused (the job is finished already)
      ConcurrentHashMap<String, AttemptOutcome> ends = new ConcurrentHashMap<>();
      try (JobWorker w = JobWorker.builder(q, t -> { }).listener(e -> ends.put(e.key(), e.outcome()))
          .pollInterval(Duration.ofMillis(10)).build().start()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.containsKey("a"));
      }
      assertThat(ends).containsEntry("a", AttemptOutcome.FINISHED);
    }
  }

  @Test
  void aFailureAppliedButUnacknowledgedIsRecognisedToo() {
    try (MemoryStore store = new MemoryStore()) {
      FlakyQueue q = new FlakyQueue(store.jobQueue("flaky"));
      q.enqueue(List.of(NewJob.of("a").withMaxAttempts(1)));
      q.after.set(1);
      ConcurrentHashMap<String, AttemptOutcome> ends = new ConcurrentHashMap<>();
      try (JobWorker w = JobWorker.builder(q, t -> {
        throw new IllegalStateException("no");
      }).listener(e -> ends.put(e.key(), e.outcome())).pollInterval(Duration.ofMillis(10)).build().start()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.containsKey("a"));
      }
      assertThat(ends).containsEntry("a", AttemptOutcome.IGNORED);
    }
  }

  @Test
  void aReportThatCannotReachTheStoreBeforeTheLockRunsOutIsUnknownNeverRejected() {
    try (MemoryStore store = new MemoryStore()) {
      FlakyQueue q = new FlakyQueue(store.jobQueue("flaky"));
      q.enqueue(List.of(NewJob.of("a")));
      q.before.set(Integer.MAX_VALUE); // every finish fails before the store: the store never answers
      ConcurrentHashMap<String, AttemptOutcome> ends = new ConcurrentHashMap<>();
      try (JobWorker w = JobWorker.builder(q, t -> { }).listener(e -> ends.putIfAbsent(e.key(), e.outcome()))
          .lockTtl(Duration.ofMillis(300)).pollInterval(Duration.ofMillis(10)).build().start()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.containsKey("a"));
      }
      assertThat(ends).containsEntry("a", AttemptOutcome.UNKNOWN);
    }
  }
}

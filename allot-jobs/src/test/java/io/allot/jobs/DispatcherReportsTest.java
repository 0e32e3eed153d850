package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher reports its endpoints' results as a worker reports its handlers' ({@link AttemptReporter}): in
 * batches, recognising a report that was applied although its answer was lost, and {@link AttemptOutcome#UNKNOWN}
 * (on both ends of the stream) when the store's answer did not come before the lock ran out. Real gRPC, the memory
 * store behind {@link CompletionRetryTest.FlakyQueue}.
 */
class DispatcherReportsTest {
  /** Closes what a test opened, then the store. */
  private final Closer toClose = new Closer();
  private final MemoryStore store = toClose.add(new MemoryStore());
  /** The first end of each job, on the dispatcher and on the endpoint. */
  private final Map<String, AttemptEnd> dispatcherEnds = new ConcurrentHashMap<>();
  private final Map<String, AttemptEnd> endpointEnds = new ConcurrentHashMap<>();

  @AfterEach
  void closeAll() throws Exception {
    toClose.close();
  }

  private EndpointServer endpoint(JobHandler handler, int capacity) {
    EndpointServer e = new EndpointServer(JobEndpoint.builder(handler).capacity(capacity).endpointId("e1")
        .listener(end -> endpointEnds.putIfAbsent(end.key(), end)).build());
    toClose.add(e);
    return e;
  }

  private JobDispatcher dispatcher(io.allot.store.jobs.JobQueue q, EndpointServer e, Duration lockTtl) {
    JobDispatcher d = JobDispatcher.builder(q, EndpointSource.fixed(e.address()))
        .listener(end -> dispatcherEnds.putIfAbsent(end.key(), end)).lockTtl(lockTtl)
        .pollInterval(Duration.ofMillis(10)).backoff(Backoff.fixed(Duration.ofMillis(1))).build().start();
    toClose.add(d);
    return d;
  }

  @Test
  void aFinishAppliedButUnacknowledgedIsRecognisedAndTheEndpointToldFinished() {
    CompletionRetryTest.FlakyQueue q = new CompletionRetryTest.FlakyQueue(store.jobQueue("flaky"));
    q.enqueue(NewJob.of("a"));
    q.after.set(1); // applied, then the answer is lost; the retry is refused (the job is finished already)
    dispatcher(q, endpoint(t -> { }, 2), Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(10)).until(() -> endpointEnds.containsKey("a"));
    assertThat(dispatcherEnds.get("a").outcome()).isEqualTo(AttemptOutcome.FINISHED);
    assertThat(endpointEnds.get("a").outcome()).isEqualTo(AttemptOutcome.FINISHED);
    assertThat(q.get("a").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
  }

  @Test
  void aFailureAppliedButUnacknowledgedIsRecognisedToo() {
    CompletionRetryTest.FlakyQueue q = new CompletionRetryTest.FlakyQueue(store.jobQueue("flaky"));
    q.enqueue(NewJob.of("a").withMaxAttempts(1));
    q.after.set(1);
    dispatcher(q, endpoint(t -> {
      throw new IllegalStateException("no");
    }, 2), Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(10)).until(() -> endpointEnds.containsKey("a"));
    assertThat(dispatcherEnds.get("a").outcome()).isEqualTo(AttemptOutcome.IGNORED);
    assertThat(endpointEnds.get("a").outcome()).isEqualTo(AttemptOutcome.IGNORED);
    assertThat(dispatcherEnds.get("a").error()).contains("java.lang.IllegalStateException: no");
  }

  @Test
  void anAnswerThatDoesNotComeBeforeTheLockRunsOutIsUnknownOnBothEnds() {
    CompletionRetryTest.FlakyQueue q = new CompletionRetryTest.FlakyQueue(store.jobQueue("flaky"));
    q.enqueue(NewJob.of("a"));
    q.before.set(Integer.MAX_VALUE); // no finish ever reaches the store
    dispatcher(q, endpoint(t -> { }, 2), Duration.ofMillis(300));
    await().atMost(Duration.ofSeconds(10)).until(() -> endpointEnds.containsKey("a"));
    assertThat(dispatcherEnds.get("a").outcome()).isEqualTo(AttemptOutcome.UNKNOWN);
    assertThat(endpointEnds.get("a").outcome()).isEqualTo(AttemptOutcome.UNKNOWN);
  }

  @Test
  void resultsThatArriveTogetherAreFinishedInOneFinishAll() {
    CountDownLatch firstBatchHeld = new CountDownLatch(1);
    CountDownLatch releaseFirstBatch = new CountDownLatch(1);
    AtomicInteger singleFinishes = new AtomicInteger();
    List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
    CompletionRetryTest.FlakyQueue q = new CompletionRetryTest.FlakyQueue(store.jobQueue("batched")) {
      @Override
      public JobOutcome finish(String k, long t) {
        singleFinishes.incrementAndGet();
        return super.finish(k, t);
      }

      @Override
      public Map<String, JobOutcome> finishAll(Map<String, Long> tokens) {
        batchSizes.add(tokens.size());
        if (batchSizes.size() == 1) { // hold the first batch until every result has come in
          firstBatchHeld.countDown();
          awaitLatch(releaseFirstBatch);
        }
        return super.finishAll(tokens);
      }
    };
    q.enqueue(IntStream.range(0, 8).mapToObj(i -> NewJob.of("t" + i)).toList());
    CountDownLatch go = new CountDownLatch(1);
    EndpointServer e = endpoint(t -> go.await(), 8);
    JobDispatcher d = dispatcher(q, e, Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(10)).until(() -> e.endpoint.running() == 8);
    go.countDown();
    await().atMost(Duration.ofSeconds(10))
        .until(() -> d.outstanding() == 0 && (firstBatchHeld.getCount() == 0 || singleFinishes.get() > 0));
    releaseFirstBatch.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatcherEnds.size() == 8);
    assertThat(dispatcherEnds.values()).extracting(AttemptEnd::outcome).containsOnly(AttemptOutcome.FINISHED);
    assertThat(singleFinishes).hasValue(0);
    assertThat(batchSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(8);
    assertThat(batchSizes).as("the results that waited went out together").anyMatch(n -> n > 1);
  }

  private static void awaitLatch(CountDownLatch l) {
    try {
      l.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.Leadership;
import io.allot.store.Lease;
import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The dispatcher and the Java endpoint over real gRPC (Netty, local ports) on the memory store. */
class JobDispatcherTest {
  /** Closes what a test opened, then the store. */
  private final Closer toClose = new Closer();
  private final MemoryStore store = toClose.add(new MemoryStore());
  private final JobQueue queue = store.jobQueue("q");
  /** Accepted completions (FINISHED, RETRY_SCHEDULED, IGNORED) per key, as the dispatchers saw them. */
  private final Map<String, List<AttemptOutcome>> accepted = new ConcurrentHashMap<>();
  private final List<String> finishedKeys = Collections.synchronizedList(new ArrayList<>());

  private final AttemptListener record = end -> {
    if (end.outcome().accepted()) {
      accepted.computeIfAbsent(end.key(), k -> Collections.synchronizedList(new ArrayList<>())).add(end.outcome());
      if (end.outcome() == AttemptOutcome.FINISHED) {
        finishedKeys.add(end.key());
      }
    }
  };

  @AfterEach
  void closeAll() throws Exception {
    toClose.close();
  }

  private <T extends AutoCloseable> T closing(T c) {
    return toClose.add(c);
  }

  private EndpointServer endpoint(JobEndpoint.Builder b) {
    return closing(new EndpointServer(b.build()));
  }

  private JobDispatcher.Builder dispatcher(EndpointSource source) {
    return JobDispatcher.builder(queue, source).listener(record).lockTtl(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(20)).heartbeat(Duration.ofSeconds(1)).drainTimeout(Duration.ofSeconds(5))
        .backoff(Backoff.fixed(Duration.ofMillis(1)));
  }

  private void enqueue(int n) {
    queue.enqueue(IntStream.range(0, n).mapToObj(i -> NewJob.of("t" + i, "payload " + i)).toList());
  }

  @Test
  void resultsFlowBackAndEveryJobFinishesOnce() {
    Map<String, AttemptOutcome> verdicts = new ConcurrentHashMap<>();
    AttemptListener v = end -> verdicts.put(end.key() + "#" + end.attempt(), end.outcome());
    AtomicInteger ranA = new AtomicInteger();
    AtomicInteger ranB = new AtomicInteger();
    JobHandler failTensOnce = t -> {
      int i = Integer.parseInt(t.key().substring(1));
      if (i % 10 == 0 && t.attempt() == 1) {
        throw new JobHandler.RetryAfter("first attempt of " + t.key() + " fails", Duration.ofMillis(1));
      }
      assertThat(t.data()).isEqualTo("payload " + i);
    };
    EndpointServer a = endpoint(JobEndpoint.builder(t -> { ranA.incrementAndGet(); failTensOnce.handle(t); })
        .capacity(4).endpointId("a").listener(v));
    EndpointServer b = endpoint(JobEndpoint.builder(t -> { ranB.incrementAndGet(); failTensOnce.handle(t); })
        .capacity(4).endpointId("b").listener(v));
    enqueue(200);
    closing(dispatcher(EndpointSource.fixed(a.address(), b.address())).build().start());

    await().atMost(Duration.ofSeconds(30)).until(() -> finishedKeys.size() >= 200);
    assertThat(finishedKeys).hasSize(200).doesNotHaveDuplicates();
    assertThat(queue.stats(0).count(JobStatus.FINISHED)).isEqualTo(200);
    assertThat(queue.get("t10").orElseThrow().attempts()).isEqualTo(2);
    assertThat(queue.get("t11").orElseThrow().attempts()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(30)).until(() -> verdicts.size() >= 220);
    assertThat(verdicts).containsEntry("t10#1", AttemptOutcome.RETRY_SCHEDULED).containsEntry("t10#2", AttemptOutcome.FINISHED)
        .containsEntry("t11#1", AttemptOutcome.FINISHED);
    assertThat(ranA.get()).isPositive();
    assertThat(ranB.get()).isPositive();
  }

  @Test
  void neverSendsMoreThanTheEndpointsCredits() {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    EndpointServer e = endpoint(JobEndpoint.builder(t -> {
      maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        go.await();
      } finally {
        running.decrementAndGet();
      }
    }).capacity(3));
    enqueue(20);
    JobDispatcher d = closing(dispatcher(EndpointSource.fixed(e.address())).batchSize(50).build().start());

    await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 3);
    // the dispatcher claimed only what the credits allow: the rest stays in the store, runnable by anyone
    assertThat(queue.stats(0).count(JobStatus.PROCESSING)).isEqualTo(3);
    assertThat(queue.stats(0).count(JobStatus.TODO)).isEqualTo(17);
    assertThat(d.outstanding()).isEqualTo(3);
    go.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> finishedKeys.size() >= 20);
    assertThat(maxRunning.get()).isEqualTo(3);
    assertThat(finishedKeys).doesNotHaveDuplicates();
  }

  @Test
  void claimsAtTheQueuesRateLimitWhichTheStoreEnforces() {
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    try (MemoryStore frozen = new MemoryStore(nanos::get)) { // store time moves only when the test says so
      JobQueue q = frozen.jobQueue("limited");
      q.enqueue(IntStream.range(0, 20).mapToObj(i -> NewJob.of("t" + i)).toList());
      EndpointServer e = endpoint(JobEndpoint.builder(t -> { }).capacity(50));
      closing(JobDispatcher.builder(q, EndpointSource.fixed(e.address())).listener(record).rateLimit(5)
          .pollInterval(Duration.ofMillis(10)).build().start());
      // the bucket starts empty and refills with store time only: nothing is claimed while the clock stands still,
      // then one second of the rate (5 jobs) per second of store time, though the endpoint has 50 credits
      await().atMost(Duration.ofSeconds(10)).until(() -> e.endpoint.streams() == 1);
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30)).until(() -> finishedKeys.isEmpty());
      nanos.addAndGet(Duration.ofSeconds(1).toNanos());
      await().atMost(Duration.ofSeconds(10)).until(() -> finishedKeys.size() == 5);
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30)).until(() -> finishedKeys.size() == 5);
      nanos.addAndGet(Duration.ofSeconds(1).toNanos());
      await().atMost(Duration.ofSeconds(10)).until(() -> finishedKeys.size() == 10);
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30)).until(() -> finishedKeys.size() == 10);
      assertThat(q.stats(0).count(JobStatus.TODO)).isEqualTo(10);
    }
  }

  @Test
  void aResultWhoseLockWasLostIsRejectedAndTheEndpointTold() {
    Map<Long, AttemptOutcome> verdicts = new ConcurrentHashMap<>();
    CountDownLatch firstAttemptRunning = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    EndpointServer e = endpoint(JobEndpoint.builder(t -> {
      if (first.getAndSet(false)) {
        firstAttemptRunning.countDown();
        // not interruptible: this handler ignores cancellation, as a careless one would
        while (!releaseFirst.await(10, java.util.concurrent.TimeUnit.MILLISECONDS)) {
          Thread.onSpinWait();
        }
      }
    }).capacity(2).listener(end -> verdicts.put(end.token(), end.outcome())));
    queue.enqueue(NewJob.of("a"));
    closing(dispatcher(EndpointSource.fixed(e.address())).build().start());
    awaitLatch(firstAttemptRunning);
    long firstToken = queue.get("a").orElseThrow().token();

    queue.retry(List.of("a")); // by hand: the running attempt loses its lock; the job runs again
    await().atMost(Duration.ofSeconds(10)).until(() -> finishedKeys.contains("a"));
    long secondToken = queue.get("a").orElseThrow().token();
    assertThat(secondToken).isGreaterThan(firstToken);
    releaseFirst.countDown();

    await().atMost(Duration.ofSeconds(10)).until(() -> verdicts.containsKey(firstToken));
    assertThat(verdicts).containsEntry(firstToken, AttemptOutcome.REJECTED).containsEntry(secondToken, AttemptOutcome.FINISHED);
    assertThat(accepted.get("a")).containsExactly(AttemptOutcome.FINISHED);
    assertThat(queue.get("a").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
  }

  @Test
  void anExtensionRefusedCancelsTheAttemptOnTheEndpoint() {
    Map<Long, AttemptOutcome> verdicts = new ConcurrentHashMap<>();
    CountDownLatch running = new CountDownLatch(1);
    AtomicBoolean cancelled = new AtomicBoolean();
    EndpointServer e = endpoint(JobEndpoint.builder(t -> {
      if (t.attempt() == 1) {
        running.countDown();
        try {
          Thread.sleep(60_000);
        } catch (InterruptedException ie) {
          cancelled.set(t.stopRequested());
          throw ie;
        }
      }
    }).capacity(1).listener(end -> verdicts.put(end.token(), end.outcome())));
    queue.enqueue(NewJob.of("a"));
    // a lock of 3 s: the endpoint's own deadline (a fraction of the lock) must not pass before the refused extension
    // on a loaded machine, or the attempt ends by that deadline (UNKNOWN) instead of by the refusal under test
    closing(dispatcher(EndpointSource.fixed(e.address())).lockTtl(Duration.ofSeconds(3)).build().start());
    awaitLatch(running);
    long firstToken = queue.get("a").orElseThrow().token();
    queue.ignore(List.of("a")); // by hand: the lock is gone; the next extension is refused
    await().atMost(Duration.ofSeconds(10)).until(() -> verdicts.containsKey(firstToken));
    assertThat(cancelled).isTrue();
    assertThat(verdicts).containsEntry(firstToken, AttemptOutcome.REJECTED);
    assertThat(queue.get("a").orElseThrow().status()).isEqualTo(JobStatus.IGNORED);
    assertThat(accepted).isEmpty();
  }

  @Test
  void anEndpointThatDiesMidJobHasItsJobsGivenBackOnceItSurelyStopped() throws Exception {
    Set<String> targets = new CopyOnWriteArraySet<>();
    CountDownLatch never = new CountDownLatch(1);
    Set<String> ranOnDead = ConcurrentHashMap.newKeySet();
    EndpointServer dying = endpoint(JobEndpoint.builder(t -> {
      ranOnDead.add(t.key());
      never.await();
    }).capacity(2));
    targets.add(dying.address());
    enqueue(4);
    JobDispatcher d = closing(dispatcher(() -> Set.copyOf(targets)).lockTtl(Duration.ofMillis(500)).build().start());
    await().atMost(Duration.ofSeconds(10)).until(() -> ranOnDead.size() == 2);
    assertThat(d.outstanding()).isEqualTo(2);

    dying.kill();
    EndpointServer healthy = endpoint(JobEndpoint.builder(t -> { }).capacity(2));
    targets.add(healthy.address());
    await().atMost(Duration.ofSeconds(20)).until(() -> finishedKeys.size() >= 4);
    assertThat(finishedKeys).hasSize(4).doesNotHaveDuplicates();
    for (String k : ranOnDead) {
      // never finished without a result: the dead endpoint's attempt was given back as a failure (it counts)
      assertThat(queue.get(k).orElseThrow().attempts()).isEqualTo(2);
      assertThat(accepted.get(k)).containsExactly(AttemptOutcome.RETRY_SCHEDULED, AttemptOutcome.FINISHED);
    }
  }

  @Test
  void aSilentStreamIsDroppedAndItsJobsRunElsewhere() throws Exception {
    // an endpoint written against the .proto alone that says Ready once, takes jobs, then goes quiet (a hung
    // process, or a network cut that sends no reset)
    Set<String> swallowed = ConcurrentHashMap.newKeySet();
    io.allot.jobs.v1.JobEndpointGrpc.JobEndpointImplBase mute =
        new io.allot.jobs.v1.JobEndpointGrpc.JobEndpointImplBase() {
          @Override
          public io.grpc.stub.StreamObserver<io.allot.jobs.v1.DispatcherMessage> dispatch(
              io.grpc.stub.StreamObserver<io.allot.jobs.v1.EndpointMessage> out) {
            return new io.grpc.stub.StreamObserver<>() {
              @Override
              public void onNext(io.allot.jobs.v1.DispatcherMessage m) {
                if (m.hasHello()) {
                  out.onNext(io.allot.jobs.v1.EndpointMessage.newBuilder().setReady(
                      io.allot.jobs.v1.Ready.newBuilder().setCapacity(2)).build());
                } else if (m.hasJob()) {
                  swallowed.add(m.getJob().getKey());
                }
              }

              @Override
              public void onError(Throwable t) { }

              @Override
              public void onCompleted() { }
            };
          }
        };
    io.grpc.Server muteServer = io.grpc.Grpc.newServerBuilderForPort(0, io.grpc.InsecureServerCredentials.create())
        .addService(mute).build().start();
    toClose.add(() -> muteServer.shutdownNow().awaitTermination());
    Set<String> targets = new CopyOnWriteArraySet<>(List.of("127.0.0.1:" + muteServer.getPort()));
    enqueue(2);
    JobDispatcher d = closing(dispatcher(() -> Set.copyOf(targets)).lockTtl(Duration.ofMillis(500))
        .heartbeat(Duration.ofMillis(200)).build().start());
    await().atMost(Duration.ofSeconds(10)).until(() -> swallowed.size() == 2);
    targets.clear();
    EndpointServer healthy = endpoint(JobEndpoint.builder(t -> { }).capacity(2));
    targets.add(healthy.address());
    await().atMost(Duration.ofSeconds(20)).until(() -> finishedKeys.size() >= 2);
    assertThat(finishedKeys).containsExactlyInAnyOrder("t0", "t1");
    assertThat(queue.get("t0").orElseThrow().attempts()).isEqualTo(2);
  }

  @Test
  void followsTheLiveMembersOfAPool() {
    io.allot.store.Membership pool = store.membership("workers");
    EndpointServer member = endpoint(JobEndpoint.builder(t -> { }).capacity(2));
    EndpointServer drained = endpoint(JobEndpoint.builder(t -> {
      throw new AssertionError("a member with affinity 0 gets no jobs");
    }).capacity(2));
    pool.register(member.address(), io.allot.store.MemberMeta.DEFAULT, Duration.ofSeconds(30));
    pool.register(drained.address(), io.allot.store.MemberMeta.DEFAULT.withAffinity(0), Duration.ofSeconds(30));
    enqueue(20);
    JobDispatcher d = closing(dispatcher(EndpointSource.members(pool, store.clock())).build().start());
    await().atMost(Duration.ofSeconds(10)).until(() -> finishedKeys.size() >= 20);
    assertThat(d.connectedEndpoints()).containsExactly(member.address());
    assertThat(drained.endpoint.streams()).isZero();
  }

  @Test
  void theStandbyDispatchesWhenTheLeaderCloses() {
    EndpointServer e = endpoint(JobEndpoint.builder(t -> Thread.sleep(2)).capacity(4));
    JobDispatcher first = dispatcher(EndpointSource.fixed(e.address())).leadership(store.leadership())
        .leaseTtl(Duration.ofMillis(600)).dispatcherId("first").build();
    JobDispatcher second = closing(dispatcher(EndpointSource.fixed(e.address())).leadership(store.leadership())
        .leaseTtl(Duration.ofMillis(600)).dispatcherId("second").build());
    first.start();
    await().atMost(Duration.ofSeconds(30)).until(first::isLeading);
    assertThat(store.leadership().current("allot-jobs-dispatcher:q")).get().extracting(Lease::holder)
        .isEqualTo("first");
    second.start();
    firstServesWhileSecondStandsBy(second);
    first.close(); // releases the lease: the standby takes it on its next tick
    await().atMost(Duration.ofSeconds(10)).until(second::isLeading);
    secondServesTheRest();
  }

  @Test
  void theStandbyTakesOverWhenTheLeadersLeaseLapses() {
    EndpointServer e = endpoint(JobEndpoint.builder(t -> Thread.sleep(2)).capacity(4));
    AtomicBoolean cutOff = new AtomicBoolean();
    JobDispatcher first = closing(dispatcher(EndpointSource.fixed(e.address()))
        .leadership(new CuttableLeadership(store.leadership(), cutOff)).leaseTtl(Duration.ofMillis(600))
        .dispatcherId("first").build().start());
    await().atMost(Duration.ofSeconds(30)).until(first::isLeading);
    JobDispatcher second = closing(dispatcher(EndpointSource.fixed(e.address())).leadership(store.leadership())
        .leaseTtl(Duration.ofMillis(600)).dispatcherId("second").build().start());
    firstServesWhileSecondStandsBy(second);

    cutOff.set(true); // the leader can no longer reach the store's leases: it cannot renew, its lease lapses
    await().atMost(Duration.ofSeconds(10)).until(() -> !first.isLeading());
    await().atMost(Duration.ofSeconds(10)).until(second::isLeading);
    secondServesTheRest();
  }

  @Test
  void builderNamesTheBadSetting() {
    JobDispatcher.Builder b = JobDispatcher.builder(queue, EndpointSource.fixed("127.0.0.1:1"));
    assertThatThrownBy(() -> b.lockTtl(Duration.ofMillis(1))).hasMessageContaining("lockTtl");
    assertThatThrownBy(() -> b.batchSize(0)).hasMessageContaining("batchSize");
    assertThatThrownBy(() -> b.heartbeat(Duration.ZERO)).hasMessageContaining("heartbeat");
    assertThatThrownBy(() -> JobEndpoint.builder(t -> { }).capacity(0)).hasMessageContaining("capacity");
    assertThatThrownBy(() -> EndpointSource.fixed(List.of())).hasMessageContaining("endpoint");
  }

  /** Jobs 0 to 99 are done, all by the leader {@code first}, while {@code second} stands by. */
  private void firstServesWhileSecondStandsBy(JobDispatcher second) {
    enqueueRange(0, 100);
    await().atMost(Duration.ofSeconds(20)).until(() -> finishedKeys.size() >= 100);
    assertThat(second.isLeading()).isFalse();
  }

  /** After the takeover: jobs 100 to 199 done once each, all by {@code second} (0 to 99 by {@code first}). */
  private void secondServesTheRest() {
    enqueueRange(100, 200);
    await().atMost(Duration.ofSeconds(30)).until(() -> finishedKeys.size() >= 200);
    assertThat(finishedKeys).hasSize(200).doesNotHaveDuplicates();
    assertThat(lockedBy(0, 100)).containsExactly("first");
    assertThat(lockedBy(100, 200)).containsExactly("second");
  }

  private void enqueueRange(int from, int to) {
    queue.enqueue(IntStream.range(from, to).mapToObj(i -> NewJob.of("t" + i)).toList());
  }

  private List<String> lockedBy(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> queue.get("t" + i).orElseThrow().lockedBy()).distinct().sorted()
        .toList();
  }

  private static void awaitLatch(CountDownLatch l) {
    await().atMost(Duration.ofSeconds(10)).until(() -> l.getCount() == 0);
  }

  /** A leadership view that a network cut can separate from the store. */
  private record CuttableLeadership(Leadership inner, AtomicBoolean cut) implements Leadership {
    private void check() {
      if (cut.get()) {
        throw new StoreUnavailableException("cut off (test)");
      }
    }

    @Override
    public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
      check();
      return inner.tryAcquire(name, holder, ttl);
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      check();
      return inner.renew(lease, ttl);
    }

    @Override
    public void release(Lease lease) {
      check();
      inner.release(lease);
    }

    @Override
    public Optional<Lease> current(String name) {
      check();
      return inner.current(name);
    }
  }
}

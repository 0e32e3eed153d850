package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.FreezingProxy;
import io.allot.testkit.overlap.OverlapChecker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A dead or frozen job endpoint's jobs run again on another endpoint long before their locks expire (a 60 s lock
 * here, the dispatcher's other settings at their defaults), and never on two endpoints at once: every attempt's run
 * is recorded as an interval and checked with the {@link OverlapChecker}. "killed": the endpoint's server dies
 * abruptly (its connections reset, nothing closes the stream in the protocol); "frozen": a proxy in between stops
 * forwarding both ways and closes nothing, so the dispatcher only sees silence and the endpoint only misses its
 * Heartbeats. (The kill -9 of a real process is {@code bin/allot bench failover --jobs}, and its short run in
 * allot-bench's tests.)
 */
class EndpointFailoverTest {
  private static final Duration LONG_LOCK = Duration.ofSeconds(60);

  private final Closer toClose = new Closer();
  private final List<OverlapChecker.Interval> runs = new CopyOnWriteArrayList<>();
  /** Attempts running now: key -> start (System.nanoTime()). */
  private final Map<String, Long> startedFirst = new ConcurrentHashMap<>();
  private final Set<String> ranAgain = ConcurrentHashMap.newKeySet();

  @AfterEach
  void closeAll() throws Exception {
    toClose.close();
  }

  /** Attempt 1 runs until it is stopped (interrupt or stopRequested); later attempts return at once. */
  private JobHandler recording(String endpoint) {
    return ctx -> {
      long start = System.nanoTime();
      if (ctx.attempt() == 1) {
        startedFirst.put(ctx.key(), start);
      } else {
        ranAgain.add(ctx.key());
      }
      try {
        while (ctx.attempt() == 1 && !ctx.stopRequested()) {
          Thread.sleep(2);
        }
      } finally {
        runs.add(new OverlapChecker.Interval(ctx.key(), endpoint, ctx.token(), start, System.nanoTime()));
      }
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"killed", "frozen"})
  void aDeadEndpointsJobsRunAgainElsewhereBeforeTheirLocksExpireAndNeverTwiceAtOnce(String how) throws Exception {
    JobQueue queue = toClose.add(new MemoryStore()).jobQueue("failover");
    EndpointServer first = toClose.add(new EndpointServer(
        JobEndpoint.builder(recording("first")).capacity(2).endpointId("first").build()));
    EndpointServer second = toClose.add(new EndpointServer(
        JobEndpoint.builder(recording("second")).capacity(2).endpointId("second").build()));
    FreezingProxy cut = toClose.add(FreezingProxy.to("127.0.0.1", first.server.getPort()));
    Set<String> targets = new CopyOnWriteArraySet<>(Set.of(how.equals("frozen") ? cut.address() : first.address()));
    queue.enqueue(List.of(NewJob.of("a", "x"), NewJob.of("b", "y")));
    long t0 = System.nanoTime();
    toClose.add(JobDispatcher.builder(queue, () -> Set.copyOf(targets)).lockTtl(LONG_LOCK).build().start());
    await().atMost(Duration.ofSeconds(20)).until(() -> startedFirst.size() == 2);

    if (how.equals("frozen")) {
      cut.freeze(); // nothing passes any more, nothing is closed
    } else {
      first.server.shutdownNow(); // the process dies: its connections reset, the endpoint itself never closes
    }
    targets.add(second.address());

    // well before the 60 s locks could expire (counted from the dispatcher's start, before the claims)
    await().atMost(Duration.ofSeconds(40)).until(() -> ranAgain.size() == 2);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(LONG_LOCK);
    await().atMost(Duration.ofSeconds(20)).until(() ->
        queue.get("a").orElseThrow().status() == JobStatus.FINISHED
            && queue.get("b").orElseThrow().status() == JobStatus.FINISHED);
    await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == 4); // the first endpoint's runs ended too

    OverlapChecker.Report r = OverlapChecker.check(runs);
    assertThat(r.violations()).as("runs %s", runs).isEmpty();
    assertThat(runs).filteredOn(i -> i.owner().equals("second")).hasSize(2);
    assertThat(queue.get("a").orElseThrow().attempts()).isEqualTo(2);
  }
}

package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.store.postgres.PostgresStore;
import io.allot.testkit.FreezingProxy;
import io.allot.testkit.PostgresSchema;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A network cut that closes nothing: a TCP proxy between the dispatcher and an endpoint stops forwarding (both ways)
 * while a job runs there. The dispatcher drops the silent stream, the job's lock expires and a second endpoint runs
 * the job again; the first endpoint, hearing nothing from the dispatcher, must have stopped its handler before that.
 * The memory store and PostgreSQL (a schema of its own).
 */
class FrozenStreamTest {
  private final Closer toClose = new Closer();
  /** Per attempt number: when its handler started and when it returned (System.nanoTime()). */
  private final Map<Integer, Long> started = new ConcurrentHashMap<>();
  private final Map<Integer, Long> stopped = new ConcurrentHashMap<>();
  private final Map<Integer, String> ranOn = new ConcurrentHashMap<>();

  @AfterEach
  void closeAll() throws Exception {
    toClose.close();
  }

  /** Attempt 1 runs until it is stopped (its context or an interrupt); later attempts return at once. */
  private JobHandler recording(String endpoint) {
    return ctx -> {
      started.put(ctx.attempt(), System.nanoTime());
      ranOn.put(ctx.attempt(), endpoint);
      try {
        while (ctx.attempt() == 1 && !ctx.stopRequested()) {
          Thread.sleep(2);
        }
      } finally {
        stopped.put(ctx.attempt(), System.nanoTime());
      }
    };
  }

  private Store store(String kind) throws Exception {
    if (kind.equals("memory")) {
      return toClose.add(new MemoryStore());
    }
    PostgresSchema schema = toClose.add(PostgresSchema.create("allot_frozen"));
    return toClose.add(PostgresStore.connect(schema.uri()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "postgresql"})
  void anEndpointCutOffSilentlyStopsItsHandlerBeforeTheJobRunsElsewhere(String kind) throws Exception {
    JobQueue queue = store(kind).jobQueue("frozen");
    EndpointServer first = toClose.add(new EndpointServer(
        JobEndpoint.builder(recording("first")).capacity(1).endpointId("first").build()));
    EndpointServer second = toClose.add(new EndpointServer(
        JobEndpoint.builder(recording("second")).capacity(1).endpointId("second").build()));
    FreezingProxy cut = toClose.add(FreezingProxy.to("127.0.0.1", first.server.getPort()));
    Set<String> targets = new CopyOnWriteArraySet<>(Set.of(cut.address()));
    queue.enqueue(java.util.List.of(NewJob.of("long", "x")));
    toClose.add(JobDispatcher.builder(queue, () -> Set.copyOf(targets)).lockTtl(Duration.ofMillis(300))
        .heartbeat(Duration.ofMillis(100)).pollInterval(Duration.ofMillis(20)).drainTimeout(Duration.ofMillis(500))
        .backoff(Backoff.fixed(Duration.ofMillis(1))).build().start());
    await().atMost(Duration.ofSeconds(10)).until(() -> started.containsKey(1));
    assertThat(ranOn.get(1)).isEqualTo("first");

    cut.freeze(); // nothing passes any more, nothing is closed
    targets.add(second.address());

    await().atMost(Duration.ofSeconds(20)).until(() -> started.containsKey(2));
    assertThat(ranOn.get(2)).isEqualTo("second");
    assertThat(stopped.get(1))
        .as("attempt 1 (on the cut-off endpoint) stopped before attempt 2 started (at %d); started %s, stopped %s",
            started.get(2), started, stopped)
        .isNotNull().isLessThan(started.get(2));
  }
}

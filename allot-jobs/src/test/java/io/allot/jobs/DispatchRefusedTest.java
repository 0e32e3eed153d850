package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventWriter;
import io.allot.store.events.RecordedEvent;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An endpoint that refuses the dispatcher (no or wrong token) cannot write to the event history itself (it has no
 * store): the dispatcher counts every refusal and writes the first of a streak as an {@code api-refused} event.
 */
class DispatchRefusedTest {
  private static List<RecordedEvent> refusedEvents(MemoryStore store) {
    return store.events().query(EventQuery.all().ofKinds(Set.of(EventKind.API_REFUSED))).events();
  }

  @Test
  void refusalsAreCountedAndTheFirstOfAStreakIsAnEventUntilTheEndpointAcceptsTheDispatcher() throws Exception {
    AtomicBoolean refuse = new AtomicBoolean(true);
    AtomicInteger refusedCalls = new AtomicInteger();
    ServerInterceptor gate = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        if (refuse.get()) {
          refusedCalls.incrementAndGet();
          call.close(Status.UNAUTHENTICATED.withDescription("no token"), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
      }
    };
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    AtomicInteger ran = new AtomicInteger();
    try (MemoryStore store = new MemoryStore();
        JobEndpoint endpoint = JobEndpoint.builder(t -> ran.incrementAndGet()).capacity(2).endpointId("e").build()) {
      Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
          .addService(ServerInterceptors.intercept(endpoint, gate)).build().start();
      try {
        String address = "127.0.0.1:" + server.getPort();
        JobQueue q = store.jobQueue("mail");
        q.enqueue(List.of(NewJob.of("a")));
        try (JobDispatcher d = JobDispatcher.builder(q, EndpointSource.fixed(address)).dispatcherId("d-1")
            .meterRegistry(meters).events(EventWriter.of(store)).build().start()) {
          Counter refused = meters.get("allot.jobs.dispatch.refused").tag("queue", "mail").counter();
          // the dispatcher opens the stream again and again: each refusal counted, one event for the streak
          await().atMost(Duration.ofSeconds(20)).until(() -> refused.count() >= 3 && refusedCalls.get() >= 3);
          await().atMost(Duration.ofSeconds(20)).until(() -> !refusedEvents(store).isEmpty());
          assertThat(refusedEvents(store)).singleElement().satisfies(e -> {
            assertThat(e.actor()).isEqualTo("dispatch:d-1");
            assertThat(e.subject()).isEqualTo("endpoint " + address);
            assertThat(e.detail()).contains("UNAUTHENTICATED").contains("mail");
          });
          assertThat(ran).hasValue(0);
          assertThat(q.get("a").orElseThrow().status()).isEqualTo(JobStatus.TODO);

          refuse.set(false); // the dispatcher got the right token: the job runs
          await().atMost(Duration.ofSeconds(20)).until(() -> q.get("a").orElseThrow().status() == JobStatus.FINISHED);
          assertThat(refusedEvents(store)).hasSize(1);
        }
      } finally {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aStreamTheEndpointAcceptsEndsTheStreakSoTheNextRefusalIsANewEvent() {
    try (MemoryStore store = new MemoryStore()) {
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      DispatchRefusals r = new DispatchRefusals("mail", "d-1", meters.counter("refused"), EventWriter.of(store));
      r.refused("10.0.0.9:7000", "UNAUTHENTICATED: no token");
      r.refused("10.0.0.9:7000", "UNAUTHENTICATED: no token");
      r.refused("10.0.0.8:7000", "PERMISSION_DENIED: read token");
      await().atMost(Duration.ofSeconds(10)).until(() -> refusedEvents(store).size() == 2);
      r.accepted("10.0.0.9:7000");
      assertThat(r.refusing("10.0.0.9:7000")).isFalse();
      assertThat(r.refusing("10.0.0.8:7000")).isTrue();
      r.refused("10.0.0.9:7000", "UNAUTHENTICATED: no token");
      await().atMost(Duration.ofSeconds(10)).until(() -> refusedEvents(store).size() == 3);
      assertThat(refusedEvents(store)).extracting(RecordedEvent::subject).containsExactlyInAnyOrder(
          "endpoint 10.0.0.9:7000", "endpoint 10.0.0.8:7000", "endpoint 10.0.0.9:7000");
      assertThat(meters.counter("refused").count()).isEqualTo(4);
      assertThat(DispatchRefusals.isRefusal("UNAVAILABLE: io exception")).isFalse();
    }
  }
}

package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.jobs.JobDispatcher;
import io.allot.jobs.JobEndpoint;
import io.allot.server.auth.Authenticator;
import io.allot.server.auth.Role;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventWriter;
import io.allot.store.events.RecordedEvent;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.v1.CreateTaskRequest;
import io.allot.tasks.v1.TasksGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The gRPC task API's and the dispatch stream's refusals are written to the event history ({@code api-refused}, actor
 * channel and address) through the Authenticator's hook, as wired by {@link ApiOptions} and
 * {@link DispatchTokenOptions}; REST refusals are left to the REST handler (no double event).
 */
class RefusalEventsTest {
  static List<RecordedEvent> refusals(MemoryStore store) {
    return store.events().query(EventQuery.all().ofKinds(Set.of(EventKind.API_REFUSED))).events();
  }

  @Test
  void aRefusedGrpcWriteIsAnEventOfItsChannelAndAddressButARestOneIsNotWrittenTwice() throws Exception {
    ApiOptions api = new ApiOptions();
    api.token = "w-token";
    api.readToken = "";
    try (ServerSocket s = new ServerSocket(0)) {
      api.grpcPort = s.getLocalPort();
    }
    api.meterRegistry(new SimpleMeterRegistry());
    api.check();
    try (MemoryStore store = new MemoryStore();
        ApiOptions.Running grpc = api.grpc(TaskService.forPools(store, "sys-matching-table", List.of("p")))) {
      ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", grpc.port()).usePlaintext().build();
      try {
        TasksGrpc.TasksBlockingStub anon = TasksGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
        assertThatThrownBy(() -> anon.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("a").build()))
            .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("UNAUTHENTICATED");
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> !refusals(store).isEmpty());
      RecordedEvent e = refusals(store).get(0);
      assertThat(e.actor()).isEqualTo("grpc:127.0.0.1");
      assertThat(e.detail()).startsWith("missing (write): authorization: writes need");

      api.authenticator().check(Authenticator.Channel.REST, Role.WRITE, null, InetAddress.getLoopbackAddress());
      EventWriter.of(store).write(null, EventKind.API_WRITE, "test", null, "marker after the REST refusal");
      await().atMost(Duration.ofSeconds(30)).until(() -> store.events().query(EventQuery.all()).events().stream()
          .anyMatch(x -> x.kind() == EventKind.API_WRITE));
      assertThat(refusals(store)).as("REST refusals are ApiHandler's to write").hasSize(1);
    }
  }

  @Test
  void aRefusedDispatchStreamIsAnEventWhenTheEndpointHasAStore() throws Exception {
    DispatchTokenOptions options = new DispatchTokenOptions();
    options.token = "d-token";
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (MemoryStore store = new MemoryStore();
        JobEndpoint endpoint = JobEndpoint.builder(j -> { }).capacity(1).build()) {
      Authenticator auth = options.authenticator(registry, EventWriter.of(store));
      Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(DispatchTokenOptions.checked(endpoint, auth)).build().start();
      JobQueue queue = store.jobQueue("q");
      queue.enqueue(List.of(NewJob.of("j1", "x")));
      try (JobDispatcher none = DispatchAuthTest.dispatcher(queue, "127.0.0.1:" + server.getPort()).build().start()) {
        await().atMost(Duration.ofSeconds(30)).until(() -> !refusals(store).isEmpty());
      } finally {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      RecordedEvent e = refusals(store).get(0);
      assertThat(e.actor()).isEqualTo("dispatch:127.0.0.1");
      assertThat(e.detail()).startsWith("missing (write): authorization: dispatch streams need");
      assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "dispatch").counter().count())
          .isGreaterThanOrEqualTo(1);
    }
  }
}

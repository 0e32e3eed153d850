package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.jobs.EndpointSource;
import io.allot.jobs.JobDispatcher;
import io.allot.jobs.JobEndpoint;
import io.allot.server.auth.Authenticator;
import io.allot.server.auth.GrpcAuth;
import io.allot.server.auth.Role;
import io.allot.server.auth.Tokens;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job endpoint that requires a token refuses the dispatch stream of a dispatcher without it, over real gRPC. */
class DispatchAuthTest {
  @TempDir Path dir;

  double refused(SimpleMeterRegistry r, String reason) {
    var c = r.find(Authenticator.REFUSED_METRIC).tag("channel", "dispatch").tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void theDispatchStreamNeedsTheEndpointsWriteToken() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Authenticator auth = Authenticator.builder().meterRegistry(registry).tokens(Tokens.builder()
        .add("dispatcher", Role.WRITE, "d-token").add("viewer", Role.READ, "r-token").build()).build();
    AtomicInteger ran = new AtomicInteger();
    try (MemoryStore store = new MemoryStore();
        JobEndpoint endpoint = JobEndpoint.builder(j -> ran.incrementAndGet()).capacity(2).build()) {
      Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(DispatchTokenOptions.checked(endpoint, auth)).build().start();
      String address = "127.0.0.1:" + server.getPort();
      JobQueue queue = store.jobQueue("q");
      queue.enqueue(java.util.List.of(NewJob.of("j1", "x")));
      try {
        try (JobDispatcher none = dispatcher(queue, address).build().start()) {
          await().atMost(Duration.ofSeconds(30)).until(() -> refused(registry, "missing") >= 1);
        }
        try (JobDispatcher reader = dispatcher(queue, address).callCredentials(GrpcAuth.bearer("r-token")).build()
            .start()) {
          await().atMost(Duration.ofSeconds(30)).until(() -> refused(registry, "role") >= 1);
        }
        try (JobDispatcher wrong = dispatcher(queue, address).callCredentials(GrpcAuth.bearer("nope")).build()
            .start()) {
          await().atMost(Duration.ofSeconds(30)).until(() -> refused(registry, "unknown") >= 1);
        }
        assertThat(ran.get()).as("no job ran for a refused dispatcher").isZero();
        assertThat(endpoint.streams()).isZero();

        try (JobDispatcher ok = dispatcher(queue, address).callCredentials(GrpcAuth.bearer("d-token"))
            .meterRegistry(registry).build().start()) {
          await().atMost(Duration.ofSeconds(30))
              .until(() -> queue.get("j1").orElseThrow().status() == JobStatus.FINISHED);
        }
        assertThat(ran.get()).isEqualTo(1);
        assertThat(registry.get("allot.jobs.dispatch.wait").timer().count()).as("the job's queue wait").isEqualTo(1);
      } finally {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  static JobDispatcher.Builder dispatcher(JobQueue queue, String address) {
    return JobDispatcher.builder(queue, EndpointSource.fixed(address)).lockTtl(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(20)).heartbeat(Duration.ofMillis(200)).drainTimeout(Duration.ofSeconds(2));
  }

  @Test
  void theEndpointsTokenFlagsAreCheckedAndShown() throws Exception {
    Path f = dir.resolve("dispatchers");
    Files.writeString(f, "d1 write\n");
    CliRun bad = CliRun.of("job", "endpoint", "-port", "1", "-dispatcher-tokens", f.toString());
    assertThat(bad.code()).as(bad.err()).isEqualTo(2);
    assertThat(bad.err()).contains("-dispatcher-tokens: token file " + f + " line 1: must be 'name role token'");
    assertThat(CliRun.of("job", "endpoint", "--help").out()).contains("-dispatcher-token").contains("-dispatcher-tokens");
    assertThat(CliRun.of("job", "dispatcher", "--help").out()).contains("-endpoint-token");
  }
}

package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.worker.UnitHandler;
import io.allot.worker.UnitRunner;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;

/**
 * An application that runs Spring Boot's gRPC server (one service of its own, on a random port): the worker's pings
 * go on that server (the member id's port is the server's, the health check answers SERVING there once the member
 * runs, in place of Spring's own health service), unless {@code allot.worker.pings-on-app-server=false}.
 */
class AppServerPingsTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class GrpcApp {
    @Bean
    BindableService appService() {
      return () -> ServerServiceDefinition.builder("test.AppService").build();
    }

    @Bean
    UnitHandler unitHandler() {
      return unit -> unit.awaitStop(Duration.ofMinutes(1));
    }
  }

  private static ConfigurableApplicationContext start(String... more) {
    String pool = "grpc-units-" + UUID.randomUUID().toString().substring(0, 8);
    return new SpringApplicationBuilder(GrpcApp.class).properties("allot.store=memory:", "allot.worker.pool=" + pool,
        "allot.worker.host=127.0.0.1", "allot.worker.drain-timeout=0s", "spring.grpc.server.port=0",
        "spring.grpc.server.address=127.0.0.1").properties(more).run();
  }

  @Test
  void thePingsAnswerOnTheApplicationsGrpcServer() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      int port = context.getBean(GrpcServerLifecycle.class).getPort();
      UnitRunner runner = context.getBean(UnitRunner.class);
      await().atMost(Duration.ofSeconds(20)).until(() -> runner.divider().leaseValid());
      assertThat(runner.divider().memberId()).isEqualTo("127.0.0.1:" + port);
      assertThat(health(port)).isEqualTo(ServingStatus.SERVING);
    }
  }

  @Test
  void withPingsOnAppServerOffTheMemberKeepsItsOwnPort() throws Exception {
    try (ConfigurableApplicationContext context = start("allot.worker.pings-on-app-server=false")) {
      int port = context.getBean(GrpcServerLifecycle.class).getPort();
      UnitRunner runner = context.getBean(UnitRunner.class);
      await().atMost(Duration.ofSeconds(20)).until(() -> runner.divider().leaseValid());
      assertThat(runner.divider().memberId()).startsWith("127.0.0.1:").isNotEqualTo("127.0.0.1:" + port);
      int own = Integer.parseInt(runner.divider().memberId().substring("127.0.0.1:".length()));
      assertThat(health(own)).isEqualTo(ServingStatus.SERVING);
    }
  }

  private static ServingStatus health(int port) throws InterruptedException {
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance()).getStatus();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}

package io.allot.ping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Empty;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real Netty servers on loopback, real clients: what a distributor sees. */
class PingServiceTest {
  /**
   * No call here is about speed: 2 s was too short for a channel's first call (connect, HTTP/2 handshake, class
   * loading) on a loaded 2-core machine (DEADLINE_EXCEEDED in clean-clone CI at load 30), so a call may take 30 s.
   */
  private static final long CALL_DEADLINE_S = 30;

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  @Test
  void answersBothPingsByItsServingState() {
    PingService service = new PingService();
    PingServer server = closeLater(new PingServer("127.0.0.1", 0, service));
    ManagedChannel ch = channel(server.port());

    assertThat(service.isServing()).isFalse();
    assertThat(health(ch)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(legacy(ch)).isEqualTo(Status.Code.UNAVAILABLE);

    service.serving(true);
    assertThat(service.isServing()).isTrue();
    assertThat(health(ch)).isEqualTo(ServingStatus.SERVING);
    assertThat(legacy(ch)).isEqualTo(Status.Code.OK);

    service.serving(false);
    assertThat(health(ch)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(legacy(ch)).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void terminateIsForGood() {
    PingService service = PingService.alwaysServing();
    PingServer server = closeLater(new PingServer("127.0.0.1", 0, service));
    ManagedChannel ch = channel(server.port());
    assertThat(health(ch)).isEqualTo(ServingStatus.SERVING);

    service.terminate();
    service.serving(true); // ignored: the member is leaving

    assertThat(service.isServing()).isFalse();
    assertThat(health(ch)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(legacy(ch)).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void itsServicesRunOnTheApplicationsOwnServer() throws Exception {
    PingService service = PingService.alwaysServing();
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    service.services().forEach(b::addService);
    Server app = b.build().start();
    closeables.add(() -> app.shutdownNow().awaitTermination(2, TimeUnit.SECONDS));
    ManagedChannel ch = channel(app.getPort());

    assertThat(health(ch)).isEqualTo(ServingStatus.SERVING);
    assertThat(legacy(ch)).isEqualTo(Status.Code.OK);
    assertThat(service.services()).containsExactly(service.healthService(), service.legacyService());
    assertThat(app.getServices()).containsAll(service.services());
  }

  @Test
  void oneProtocolAlone() throws Exception {
    PingService service = PingService.alwaysServing();
    Server healthOnly = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(service.healthService()).build().start();
    Server legacyOnly = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(service.legacyService()).build().start();
    closeables.add(() -> healthOnly.shutdownNow().awaitTermination(2, TimeUnit.SECONDS));
    closeables.add(() -> legacyOnly.shutdownNow().awaitTermination(2, TimeUnit.SECONDS));

    assertThat(health(channel(healthOnly.getPort()))).isEqualTo(ServingStatus.SERVING);
    assertThat(legacy(channel(healthOnly.getPort()))).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(legacy(channel(legacyOnly.getPort()))).isEqualTo(Status.Code.OK);
    assertThatThrownBy(() -> healthCall(channel(legacyOnly.getPort())))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void aPortInUseIsReportedWithTheAddressAndCloseFreesThePort() {
    PingServer first = new PingServer("127.0.0.1", 0, new PingService());
    int port = first.port();
    assertThatThrownBy(() -> new PingServer("127.0.0.1", port, new PingService()))
        .isInstanceOf(UncheckedIOException.class).hasMessageContaining("127.0.0.1:" + port);
    ManagedChannel ch = channel(port);
    first.close();
    assertThat(first.service().isServing()).isFalse();
    assertThat(legacy(ch)).isEqualTo(Status.Code.UNAVAILABLE); // connection refused
    closeLater(new PingServer("127.0.0.1", port, new PingService())).close(); // the port is free again
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  private ManagedChannel channel(int port) {
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    closeables.add(() -> ch.shutdownNow().awaitTermination(2, TimeUnit.SECONDS));
    return ch;
  }

  private static ServingStatus healthCall(ManagedChannel ch) {
    return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_DEADLINE_S, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus();
  }

  private static ServingStatus health(ManagedChannel ch) {
    return healthCall(ch);
  }

  private static Status.Code legacy(ManagedChannel ch) {
    try {
      ClientCalls.blockingUnaryCall(ch, LegacyPing.METHOD,
          CallOptions.DEFAULT.withDeadlineAfter(CALL_DEADLINE_S, TimeUnit.SECONDS),
          Empty.getDefaultInstance());
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }
}

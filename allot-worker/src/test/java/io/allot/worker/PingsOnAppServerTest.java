package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Empty;
import io.allot.ping.LegacyPing;
import io.allot.testkit.Ports;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The member answers its pings on the application's own gRPC server (a real Netty server, real clients): no port of
 * its own, the same health and legacy answers as on its own port, and the mistakes an application can make are
 * refused at start.
 */
class PingsOnAppServerTest extends WorkerTestBase {
  private static final MethodDescriptor<Empty, Empty> APP_METHOD =
      LegacyPing.METHOD.toBuilder().setFullMethodName("app.Echo/Ping").build();

  /** The application's server on {@code port} (0 = free): its own service, then {@code extra}; started. */
  private Server appServer(int port, List<ServerServiceDefinition> extra) throws IOException {
    NettyServerBuilder sb = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .addService(ServerServiceDefinition.builder("app.Echo")
            .addMethod(APP_METHOD, ServerCalls.asyncUnaryCall((req, out) -> {
              out.onNext(req);
              out.onCompleted();
            })).build());
    extra.forEach(sb::addService);
    Server s = sb.build().start();
    closeables.add(() -> s.shutdownNow().awaitTermination(2, TimeUnit.SECONDS));
    return s;
  }

  /** A divider that answers pings on the application's server on {@code port}. */
  private Divider onAppServer(int port, Recorder r) {
    Divider d = closeLater(fast(mem, r).pingsOnAppServer(port).build());
    r.attach(d);
    return d;
  }

  @Test
  void theMemberIsReachableAtTheApplicationServersPort() throws Exception {
    Recorder r = new Recorder("A", intervals).autoConfirm();
    Divider d = onAppServer(0, r);
    Server app = appServer(0, d.pingServices());
    String id = "127.0.0.1:" + app.getPort();
    ManagedChannel ch = channel(id);
    assertThat(health(ch)).as("not registered yet").isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(legacyPing(ch)).isEqualTo(Status.Code.UNAVAILABLE);

    d.start(app);

    assertThat(d.memberId()).isEqualTo(id);
    assertThat(mem.membership(P).members().get(id).session()).isEqualTo(d.session().orElseThrow());
    assertThat(health(ch)).isEqualTo(ServingStatus.SERVING);
    assertThat(legacyPing(ch)).isEqualTo(Status.Code.OK);
    assertThat(call(ch, APP_METHOD)).isEqualTo(Status.Code.OK);
    table.publish(id, "u1,u2");
    await().until(() -> d.assigned().size() == 2);

    d.cancel();

    assertThat(r.stops(StopReason.SHUTDOWN)).hasSize(2);
    assertThat(mem.membership(P).members()).doesNotContainKey(id);
    assertThat(app.isShutdown()).as("the application's server is the application's").isFalse();
    assertThat(health(ch)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(legacyPing(ch)).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(call(ch, APP_METHOD)).isEqualTo(Status.Code.OK);
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void withAKnownPortPlainStartWorksOnceTheServicesWereTaken() throws Exception {
    int port = Ports.free();
    Recorder r = new Recorder("A", intervals).autoConfirm();
    Divider d = onAppServer(port, r);
    assertThat(d.memberId()).as("known before start").isEqualTo("127.0.0.1:" + port);
    appServer(port, d.pingServices());
    d.start();
    assertThat(health(channel(d.memberId()))).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void theMistakesAreRefusedAtStart() throws Exception {
    // 1. the services were never taken
    Divider forgot = onAppServer(4711, new Recorder("A", intervals));
    assertThatThrownBy(forgot::start).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("pingServices()");
    assertThat(mem.membership(P).members()).isEmpty();
    assertThatThrownBy(forgot::start).as("a failed start cannot be retried").isInstanceOf(IllegalStateException.class);

    // 2. port 0 without the server
    Divider zero = onAppServer(0, new Recorder("A", intervals));
    zero.pingServices();
    assertThatThrownBy(zero::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("start(server)");

    // 3. the server does not serve them
    Divider missing = onAppServer(0, new Recorder("A", intervals));
    missing.pingServices();
    Server without = appServer(0, List.of());
    assertThatThrownBy(() -> missing.start(without)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not serve grpc.health.v1.Health");

    // 4. the application's own health service was added after the divider's and silently replaced it
    Divider replaced = onAppServer(0, new Recorder("A", intervals));
    List<ServerServiceDefinition> both = new ArrayList<>(replaced.pingServices());
    both.add(new HealthStatusManager().getHealthService().bindService());
    Server shadowed = appServer(0, both);
    assertThatThrownBy(() -> replaced.start(shadowed)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("another grpc.health.v1.Health");

    // 5. another port than configured
    Divider elsewhere = onAppServer(4711, new Recorder("A", intervals));
    Server other = appServer(0, elsewhere.pingServices());
    assertThatThrownBy(() -> elsewhere.start(other)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("pingsOnAppServer(4711)").hasMessageContaining(String.valueOf(other.getPort()));

    // 6. a server not started yet
    Divider early = onAppServer(0, new Recorder("A", intervals));
    NettyServerBuilder sb = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    early.pingServices().forEach(sb::addService);
    Server notStarted = sb.build();
    assertThatThrownBy(() -> early.start(notStarted)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not listening");

    // 7. a divider with its own port has no services to give, and no server to check
    Divider own = closeLater(fast(mem, new Recorder("A", intervals)).build());
    assertThatThrownBy(own::pingServices).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("pingsOnAppServer");
    assertThatThrownBy(() -> own.start(without)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("start()");

    assertThat(mem.membership(P).members()).as("none of them registered").isEmpty();
  }
}

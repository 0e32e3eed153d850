package io.allot.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.allot.store.MemberMeta;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.TestCa;
import io.allot.testkit.grpc.WhoService;
import io.allot.tls.PemTls;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routing channels ({@code allot://pool}) over TLS: members with certificates for their own address (127.0.0.1),
 * checked against it with {@link AllotNameResolverProvider#MEMBER_AUTHORITY}, and refused without (the pool name is
 * not in their certificates).
 */
class RouteTlsTest {
  static final MethodDescriptor<String, String> WHO = WhoService.who("tls.Who");

  @TempDir
  Path dir;

  @BeforeAll
  static void openssl() {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
  }

  @Test
  void membersAreCheckedAgainstTheirOwnAddressWithMemberAuthority() throws Exception {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued cert = ca.issue("member");
    PemTls tls = PemTls.server(cert.cert(), cert.key(), null, PemTls.DEFAULT_RELOAD);
    ServerServiceDefinition def = ServerServiceDefinition.builder(WHO.getServiceName())
        .addMethod(WHO, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext("me");
          obs.onCompleted();
        })).build();
    Server member = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0), tls.serverCredentials())
        .addService(def).build().start();
    try (MemoryStore store = new MemoryStore()) {
      store.membership("p").register("127.0.0.1:" + member.getPort(), MemberMeta.DEFAULT, Duration.ofSeconds(60));
      ManagedChannel checked = channel(store, ca.cert(), true);
      ManagedChannel byPoolName = channel(store, ca.cert(), false);
      try {
        assertThat(call(checked, true)).isEqualTo("me");
        assertThatThrownBy(() -> call(byPoolName, false)) // fails at the first connection's handshake.isInstanceOf(StatusRuntimeException.class)
            .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      } finally {
        checked.shutdownNow();
        byPoolName.shutdownNow();
      }
    } finally {
      member.shutdownNow();
    }
  }

  private static ManagedChannel channel(MemoryStore store, Path ca, boolean memberAuthority) {
    return NettyChannelBuilder.forTarget("allot://p",
            PemTls.client(ca, null, null, PemTls.DEFAULT_RELOAD).channelCredentials())
        .setNameResolverArg(AllotNameResolverProvider.STORE, store)
        .setNameResolverArg(AllotNameResolverProvider.MEMBER_AUTHORITY, memberAuthority).build();
  }

  private static String call(ManagedChannel ch, boolean waitForReady) {
    CallOptions o = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
    return ClientCalls.blockingUnaryCall(ch, WHO, waitForReady ? o.withWaitForReady() : o, "hi");
  }
}

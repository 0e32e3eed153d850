package io.allot.server.ping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.allot.ping.PingServer;
import io.allot.ping.PingService;
import io.allot.testkit.TestCa;
import io.allot.tls.Pem;
import io.allot.tls.PemTls;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCalls;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The distributor's pings over TLS: real Netty servers and channels, certificates made in the test. */
class PingerTlsTest {
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  @BeforeAll
  static void openssl() {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
  }

  @Test
  void pingsOverTlsPassAndPlainTextOrAnUntrustedRootFail() {
    TestCa ca = TestCa.create(dir.resolve("ca"));
    TestCa.Issued server = ca.issue("server");
    TestCa other = TestCa.create(dir.resolve("other"));
    PemTls tls = PemTls.server(server.cert(), server.key(), null, PemTls.DEFAULT_RELOAD);
    try (PingServer member = new PingServer("127.0.0.1", 0, PingService.alwaysServing(), tls.serverCredentials());
        Pinger trusting = new Pinger(Pinger.Mode.HEALTH, TIMEOUT,
            PemTls.client(ca.cert(), null, null, Duration.ZERO).channelCredentials());
        Pinger plain = new Pinger(Pinger.Mode.HEALTH, TIMEOUT);
        Pinger stranger = new Pinger(Pinger.Mode.HEALTH, TIMEOUT,
            PemTls.client(other.cert(), null, null, Duration.ZERO).channelCredentials())) {
      String address = "127.0.0.1:" + member.port();
      Pinger.Result ok = trusting.ping(address).join();
      assertThat(ok.ok()).as(ok.error()).isTrue();
      assertThat(plain.ping(address).join().ok()).isFalse();
      Pinger.Result refused = stranger.ping(address).join();
      assertThat(refused.ok()).isFalse();
      assertThat(refused.error()).contains("UNAVAILABLE");
    }
  }

  @Test
  void aMemberRequiringClientCertificatesAnswersOnlyTheDistributorWithOne() {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued server = ca.issue("server");
    TestCa.Issued distributor = ca.issue("distributor");
    PemTls tls = PemTls.server(server.cert(), server.key(), ca.cert(), PemTls.DEFAULT_RELOAD);
    try (PingServer member = new PingServer("127.0.0.1", 0, PingService.alwaysServing(), tls.serverCredentials());
        Pinger withCert = new Pinger(Pinger.Mode.HEALTH, TIMEOUT,
            PemTls.client(ca.cert(), distributor.cert(), distributor.key(), Duration.ZERO).channelCredentials());
        Pinger withoutCert = new Pinger(Pinger.Mode.HEALTH, TIMEOUT,
            PemTls.client(ca.cert(), null, null, Duration.ZERO).channelCredentials())) {
      String address = "127.0.0.1:" + member.port();
      Pinger.Result ok = withCert.ping(address).join();
      assertThat(ok.ok()).as(ok.error()).isTrue();
      assertThat(withoutCert.ping(address).join().ok()).isFalse();
    }
  }

  @Test
  void aRotatedServerCertificateIsShownToNewChannels() throws Exception {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued server = ca.issue("server");
    PemTls tls = PemTls.server(server.cert(), server.key(), null, Duration.ofMillis(100));
    try (PingServer member = new PingServer("127.0.0.1", 0, PingService.alwaysServing(), tls.serverCredentials())) {
      BigInteger first = serialSeen(ca.cert(), member.port());
      assertThat(first).isEqualTo(Pem.certificates(server.cert()).get(0).getSerialNumber());
      ca.issueInto(server);
      BigInteger rotated = Pem.certificates(server.cert()).get(0).getSerialNumber();
      assertThat(rotated).isNotEqualTo(first);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> serialSeen(ca.cert(), member.port()),
          rotated::equals);
    }
  }

  /** A health check on a new channel; the serial number of the certificate the server showed. */
  static BigInteger serialSeen(Path ca, int port) throws Exception {
    ManagedChannel ch = Grpc.newChannelBuilder("127.0.0.1:" + port,
        PemTls.client(ca, null, null, Duration.ZERO).channelCredentials()).build();
    try {
      var call = ch.newCall(HealthGrpc.getCheckMethod(), CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
      ClientCalls.blockingUnaryCall(call, HealthCheckRequest.getDefaultInstance());
      SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
      return ((X509Certificate) session.getPeerCertificates()[0]).getSerialNumber();
    } finally {
      ch.shutdownNow();
    }
  }
}

package io.allot.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.allot.testkit.TestCa;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PEM reading and reloading TLS, over real JDK TLS sockets on loopback with certificates made here. */
class PemTlsTest {
  @TempDir
  Path dir;

  @BeforeAll
  static void openssl() {
    assumeThat(TestCa.available()).as("openssl(1) is needed to make the test certificates").isTrue();
  }

  /** A TLS echo server on loopback: answers each connection with one byte, after the handshake. */
  static final class Echo implements AutoCloseable {
    final SSLServerSocket socket;
    final Thread thread;

    Echo(PemTls tls) throws IOException {
      socket = (SSLServerSocket) tls.sslContext().getServerSocketFactory().createServerSocket(0, 50,
          InetAddress.getLoopbackAddress());
      socket.setNeedClientAuth(tls.requiresClientCertificate());
      thread = new Thread(() -> {
        while (!socket.isClosed()) {
          try (SSLSocket s = (SSLSocket) socket.accept()) {
            s.startHandshake();
            OutputStream out = s.getOutputStream();
            out.write(42);
            out.flush();
          } catch (IOException e) {
            // a refused handshake: next connection
          }
        }
      }, "echo");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /** Connects with a fresh client (no session to resume) and returns the serial of the server certificate. */
  static BigInteger serialSeen(PemTls client, int port) throws IOException {
    try (SSLSocket s = (SSLSocket) client.sslContext().getSocketFactory().createSocket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      var p = s.getSSLParameters();
      p.setEndpointIdentificationAlgorithm("HTTPS"); // the hostname (IP) check, as gRPC and HTTPS clients do
      s.setSSLParameters(p);
      s.startHandshake();
      InputStream in = s.getInputStream();
      assertThat(in.read()).isEqualTo(42);
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  @Test
  void aClientTrustingTheCaConnectsAndOneTrustingAnotherRootIsRefused() throws IOException {
    TestCa ca = TestCa.create(dir.resolve("ca"));
    TestCa.Issued server = ca.issue("server");
    TestCa other = TestCa.create(dir.resolve("other"));
    PemTls tls = PemTls.server(server.cert(), server.key(), null, PemTls.DEFAULT_RELOAD);
    try (Echo echo = new Echo(tls)) {
      BigInteger serial = serialSeen(PemTls.client(ca.cert(), null, null, Duration.ZERO), echo.socket.getLocalPort());
      assertThat(serial).isEqualTo(Pem.certificates(server.cert()).get(0).getSerialNumber());
      assertThatThrownBy(() -> serialSeen(PemTls.client(other.cert(), null, null, Duration.ZERO),
          echo.socket.getLocalPort())).isInstanceOf(IOException.class);
    }
  }

  @Test
  void aRotatedCertificateIsPickedUpByTheNextHandshake() throws IOException {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued server = ca.issue("server");
    PemTls tls = PemTls.server(server.cert(), server.key(), null, Duration.ofMillis(100));
    try (Echo echo = new Echo(tls)) {
      int port = echo.socket.getLocalPort();
      BigInteger first = serialSeen(PemTls.client(ca.cert(), null, null, Duration.ZERO), port);
      ca.issueInto(server);
      BigInteger rotated = Pem.certificates(server.cert()).get(0).getSerialNumber();
      assertThat(rotated).isNotEqualTo(first);
      Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(serialSeen(PemTls.client(ca.cert(), null, null, Duration.ZERO), port)).isEqualTo(rotated));
    }
  }

  @Test
  void aKeyThatDoesNotFitTheCertificateKeepsThePreviousPair() throws IOException {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued server = ca.issue("server");
    TestCa.Issued other = ca.issue("other");
    PemTls tls = PemTls.server(server.cert(), server.key(), null, Duration.ZERO);
    BigInteger before = tls.certificate().getSerialNumber();
    Files.copy(other.cert(), server.cert(), java.nio.file.StandardCopyOption.REPLACE_EXISTING); // key not yet
    assertThat(tls.certificate().getSerialNumber()).isEqualTo(before);
    Files.copy(other.key(), server.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertThat(tls.certificate().getSerialNumber())
        .isEqualTo(Pem.certificates(other.cert()).get(0).getSerialNumber());
  }

  @Test
  void mutualTlsRefusesAClientWithoutACertificateFromTheClientCa() throws IOException {
    TestCa ca = TestCa.create(dir.resolve("ca"));
    TestCa.Issued server = ca.issue("server");
    TestCa.Issued client = ca.issue("client");
    TestCa stranger = TestCa.create(dir.resolve("stranger"));
    TestCa.Issued strangerClient = stranger.issue("client");
    PemTls tls = PemTls.server(server.cert(), server.key(), ca.cert(), PemTls.DEFAULT_RELOAD);
    assertThat(tls.requiresClientCertificate()).isTrue();
    try (Echo echo = new Echo(tls)) {
      int port = echo.socket.getLocalPort();
      assertThat(serialSeen(PemTls.client(ca.cert(), client.cert(), client.key(), Duration.ZERO), port)).isNotNull();
      assertThatThrownBy(() -> serialSeen(PemTls.client(ca.cert(), null, null, Duration.ZERO), port))
          .isInstanceOf(IOException.class);
      assertThatThrownBy(() -> serialSeen(PemTls.client(ca.cert(), strangerClient.cert(), strangerClient.key(),
          Duration.ZERO), port)).isInstanceOf(IOException.class);
    }
  }

  @Test
  void pkcs1AndSec1KeysAreRead() throws Exception {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued server = ca.issue("server");
    Path pkcs1 = dir.resolve("pkcs1.key");
    new ProcessBuilder("openssl", "rsa", "-in", server.key().toString(), "-traditional", "-out", pkcs1.toString())
        .inheritIO().start().waitFor();
    assertThat(Files.readString(pkcs1)).contains("BEGIN RSA PRIVATE KEY");
    assertThat(Pem.privateKey(pkcs1)).isEqualTo(Pem.privateKey(server.key()));
    Path sec1 = dir.resolve("ec.key");
    new ProcessBuilder("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", sec1.toString())
        .inheritIO().start().waitFor();
    assertThat(Files.readString(sec1)).contains("BEGIN EC PRIVATE KEY");
    assertThat(Pem.privateKey(sec1).getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void badFilesAreNamed() throws IOException {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued server = ca.issue("server");
    Path missing = dir.resolve("nope.pem");
    assertThatThrownBy(() -> PemTls.server(missing, server.key(), null, PemTls.DEFAULT_RELOAD))
        .hasMessageContaining(missing.toString()).hasMessageContaining("does not exist");
    assertThatThrownBy(() -> PemTls.server(server.key(), server.key(), null, PemTls.DEFAULT_RELOAD))
        .hasMessageContaining(server.key().toString()).hasMessageContaining("no PEM certificate");
    TestCa.Issued other = ca.issue("other");
    assertThatThrownBy(() -> PemTls.server(server.cert(), other.key(), null, PemTls.DEFAULT_RELOAD))
        .hasMessageContaining("is not the private key of the certificate");
    assertThatThrownBy(() -> PemTls.client(ca.cert(), server.cert(), null, PemTls.DEFAULT_RELOAD))
        .hasMessageContaining("certificate only");
    assertThat(List.of(PemTls.client(ca.cert(), null, null, Duration.ZERO).toString())).allMatch(s -> s.contains("TLS"));
  }
}

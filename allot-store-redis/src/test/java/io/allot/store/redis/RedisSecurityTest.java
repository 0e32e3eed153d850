package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Password (AUTH, ACL user) and TLS with a private root CA, on throwaway servers. */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class RedisSecurityTest {

  @BeforeAll
  static void needsRedisServer() {
    Assumptions.assumeTrue(RedisServerProcess.available(), "no redis-server binary: security tests skipped");
  }

  @Test
  void passwordIsRequiredAndUsed() throws IOException {
    try (RedisServerProcess server = RedisServerProcess.start("--requirepass", "s3cret-ü")) {
      assertThatThrownBy(() -> RedisStore.connect(server.address()))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(server.address())
          .hasMessageNotContaining("s3cret");
      assertThatThrownBy(() -> RedisStore.connect(RedisStoreConfig.builder(server.address()).password("wrong").build()))
          .isInstanceOf(StoreUnavailableException.class);
      try (RedisStore store = RedisStore.connect(RedisStoreConfig.builder(server.address()).password("s3cret-ü").build())) {
        assertThat(store.addToList("k", "v")).isTrue();
        assertThat(store.config().toString()).doesNotContain("s3cret");
      }
      try (RedisStore store = RedisStore.connect(
          RedisStoreConfig.builder(server.address()).username("default").password("s3cret-ü").build())) {
        assertThat(store.list("k")).containsExactly("v");
      }
    }
  }

  @Test
  void tlsWithAPrivateRootCa(@TempDir Path dir) throws Exception {
    Path ca = dir.resolve("ca.pem");
    Path otherCa = dir.resolve("other-ca.pem");
    try {
      openssl(dir, "req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", "ca.key", "-out", "ca.pem",
          "-days", "2", "-subj", "/CN=allot test root");
      openssl(dir, "req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", "other-ca.key", "-out",
          "other-ca.pem", "-days", "2", "-subj", "/CN=unrelated root");
      openssl(dir, "req", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", "server.key", "-out", "server.csr",
          "-subj", "/CN=localhost");
      Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
      openssl(dir, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf");
    } catch (IOException e) {
      Assumptions.abort("openssl cannot make test certificates here: " + e.getMessage());
    }
    int port = RedisServerProcess.freePort(false);
    try (RedisServerProcess server = RedisServerProcess.start(port, false, "--port", "0", "--tls-port",
        Integer.toString(port), "--tls-cert-file", dir.resolve("server.pem").toString(), "--tls-key-file",
        dir.resolve("server.key").toString(), "--tls-ca-cert-file", ca.toString(), "--tls-auth-clients", "no",
        "--requirepass", "pw")) {
      RedisStoreConfig.Builder base = RedisStoreConfig.builder(server.address()).password("pw")
          .connectTimeout(Duration.ofSeconds(2));

      try (RedisStore store = RedisStore.connect(base.caPemFiles(List.of(otherCa, ca)).build())) {
        assertThat(store.config().tls()).isTrue();
        assertThat(store.addToList("services", "10.0.0.1:8080")).isTrue();
        Lease lease = store.tryAcquire(Store.tableLeaseName("t", "g"), "d1", Duration.ofSeconds(5)).orElseThrow();
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        try (Subscription ignored = store.subscribe(Store.notifyChannel("t"), got::add)) {
          store.publish(lease, "t", "g", Map.of("m", "u"));
          assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("1");
        }
      }
      // a server certificate from a root we were not told to trust is refused
      assertThatThrownBy(() -> RedisStore.connect(RedisStoreConfig.builder(server.address()).password("pw")
              .caPemFiles(List.of(otherCa)).build()))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(server.address());
      // plain text against a TLS port does not hang
      assertThatThrownBy(() -> RedisStore.connect(RedisStoreConfig.builder(server.address()).password("pw")
              .connectTimeout(Duration.ofSeconds(1)).commandTimeout(Duration.ofSeconds(1)).build()))
          .isInstanceOf(StoreUnavailableException.class);
    }
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
    }
  }
}

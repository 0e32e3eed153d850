package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Stores;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.testkit.RedisServer;
import io.allot.testkit.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Password (AUTH, ACL user) and TLS with a private root CA, on throwaway servers. */
@SuppressWarnings("try") // subscriptions held open by try-with-resources
class RedisSecurityTest {

  @Test
  void passwordIsRequiredAndUsed() {
    try (RedisServer server = RedisServer.builder().password("s3cret-ü").start()) {
      assertThatThrownBy(() -> RedisStore.connect(server.address()))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(server.address())
          .hasMessageNotContaining("s3cret");
      assertThatThrownBy(() -> RedisStore.connect(RedisStoreConfig.builder(server.address()).password("wrong").build()))
          .isInstanceOf(StoreUnavailableException.class);
      try (Store store = Stores.open(server.uri())) { // the password percent-encoded in the URI
        assertThat(store.seedKeys().addToList("k", "v")).isTrue();
        assertThat(((RedisStore) store).config().toString()).doesNotContain("s3cret");
        assertThat(store.describe()).doesNotContain("s3cret");
      }
      try (RedisStore store = RedisStore.connect(
          RedisStoreConfig.builder(server.address()).username("default").password("s3cret-ü").build())) {
        assertThat(store.seedKeys().list("k")).containsExactly("v");
      }
    }
  }

  @Test
  void tlsWithAPrivateRootCa(@TempDir Path dir) throws InterruptedException {
    TlsFiles tls = TlsFiles.generate(dir.resolve("root"));
    Path otherCa = TlsFiles.generate(dir.resolve("unrelated-root")).caCert();
    try (RedisServer server = RedisServer.builder().tls(tls).password("pw").start()) {
      RedisStoreConfig.Builder base = RedisStoreConfig.builder(server.address()).password("pw")
          .connectTimeout(Duration.ofSeconds(2));

      try (RedisStore store = RedisStore.connect(base.caPemFiles(List.of(otherCa, tls.caCert())).build())) {
        assertThat(store.config().tls()).isTrue();
        assertThat(store.seedKeys().addToList("services", "10.0.0.1:8080")).isTrue();
        Lease lease = store.leadership().tryAcquire(Tables.leaseName("t", "g"), "d1", Duration.ofSeconds(5)).orElseThrow();
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        try (Subscription ignored = store.notifications().subscribe(Topic.table("t"), got::add)) {
          store.tables().publish(lease, "t", "g", Map.of("m", "u"));
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
}

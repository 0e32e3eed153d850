package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Stores;
import io.allot.testkit.Ports;
import io.allot.testkit.TestServers;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Opening Redis stores by URI through {@link Stores} (the provider is found with ServiceLoader). */
class RedisStoreProviderTest {

  @Test
  void opensTheRedisStoreByUri() {
    try (Store store = Stores.open(TestServers.redisUri())) {
      assertThat(store).isInstanceOf(RedisStore.class);
      assertThat(store.clock().timeMillis()).isPositive();
      assertThat(store.seedKeys().list("allot-test:" + System.nanoTime())).isEmpty();
    }
  }

  @Test
  void theUriSettingsReachTheStore() {
    String server = TestServers.redisUri().replaceFirst("^([a-z-]+://[^/?]*).*$", "$1"); // no database, no parameters
    // generous values: the connect runs checks and loads scripts under them (700 ms timed out at load 20)
    try (Store store = Stores.open(server + "/1?timeout=7s&connect_timeout=10s&client_name=t&queue=9")) {
      RedisStoreConfig c = ((RedisStore) store).config();
      assertThat(c.database()).isEqualTo(1);
      assertThat(c.commandTimeout()).isEqualTo(Duration.ofSeconds(7));
      assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
      assertThat(c.clientName()).isEqualTo("t");
      assertThat(c.requestQueueSize()).isEqualTo(9);
      assertThat(store.describe()).isEqualTo(server.replaceFirst("//[^@]*@", "//") + "/1");
      assertThat(store.clock().timeMillis()).isPositive();
    }
  }

  @Test
  void everySchemeIsServedAndListedInTheForms() {
    assertThat(Stores.forms()).contains(RedisUri.USAGE);
    assertThatThrownBy(() -> Stores.open("rediss-cluster://:s3cret@h:1/2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rediss-cluster://:***@h:1/2")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void noServerIsUnavailableNamingTheUriButNotThePassword() {
    int port = Ports.free();
    assertThatThrownBy(() -> Stores.open("redis://:s3cret@127.0.0.1:" + port + "?connect_timeout=500ms"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("redis://127.0.0.1:" + port)
        .hasMessageNotContaining("s3cret");
  }
}

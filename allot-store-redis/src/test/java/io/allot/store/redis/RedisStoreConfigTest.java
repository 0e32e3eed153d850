package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Configuration and address parsing (no server needed). */
class RedisStoreConfigTest {

  @Test
  void oneAddressIsStandaloneSeveralAreCluster() {
    assertThat(RedisStoreConfig.builder("127.0.0.1:6379").build().cluster()).isFalse();
    assertThat(RedisStoreConfig.builder("a:7000", "b:7001").build().cluster()).isTrue();
    assertThat(RedisStoreConfig.builder("a:7000", "b:7001").build().describe()).isEqualTo("Redis Cluster a:7000,b:7001");
    assertThatThrownBy(() -> RedisStoreConfig.builder(List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void addressesParse() {
    RedisStoreConfig c = RedisStoreConfig.builder("x").build();
    RedisURI plain = RedisStore.uri("redis.internal:6380", c);
    assertThat(plain.getHost()).isEqualTo("redis.internal");
    assertThat(plain.getPort()).isEqualTo(6380);
    assertThat(RedisStore.uri("redis.internal", c).getPort()).isEqualTo(6379);
    RedisURI v6 = RedisStore.uri("[::1]:7000", c);
    assertThat(v6.getHost()).isEqualTo("::1");
    assertThat(v6.getPort()).isEqualTo(7000);
    assertThatThrownBy(() -> RedisStore.uri("::1:7000", c)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStore.uri("host:http", c)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStore.uri("host:70000", c)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStore.uri(":6379", c)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void securitySettingsReachTheUri() {
    RedisStoreConfig c = RedisStoreConfig.builder("h:1").username("app").password("pw")
        .tls(true).tlsVerify(RedisStoreConfig.TlsVerify.CA).database(3).commandTimeout(Duration.ofMillis(700))
        .build();
    RedisURI uri = RedisStore.uri("h:1", c);
    assertThat(uri.isSsl()).isTrue();
    assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.CA);
    assertThat(uri.getDatabase()).isEqualTo(3);
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofMillis(700));
    assertThat(uri.getCredentialsProvider().resolveCredentials().block().getUsername()).isEqualTo("app");
    assertThat(c.toString()).contains("***").doesNotContain("pw,");
    assertThat(RedisStoreConfig.builder("h:1").caPemFiles(List.of(Path.of("ca.pem"))).build().tls()).isTrue();
    assertThatThrownBy(() -> RedisStore.uri("h:1", RedisStoreConfig.builder("a:1", "b:2").database(1).build()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anUnreadableCaFileIsAConfigurationError() {
    assertThatThrownBy(() -> RedisStore.connect(
            RedisStoreConfig.builder("127.0.0.1:1").caPemFiles(List.of(Path.of("/nonexistent/ca.pem"))).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/nonexistent/ca.pem");
  }
}

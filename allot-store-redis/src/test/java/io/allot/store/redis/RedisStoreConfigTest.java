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
    assertThat(RedisStoreConfig.builder("a:7000").cluster(true).build().cluster()).isTrue();
    assertThat(RedisStoreConfig.builder("a:7000", "b:7001").build().describe()).isEqualTo("redis-cluster://a:7000,b:7001");
    assertThat(RedisStoreConfig.builder("h").database(2).tls(true).build().describe()).isEqualTo("rediss://h:6379/2");
    assertThatThrownBy(() -> RedisStoreConfig.builder(List.of()).build()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStoreConfig.builder("a:1", "b:2").cluster(false).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cluster");
  }

  @Test
  void addressesParse() {
    assertThat(RedisAddress.parse("redis.internal:6380")).isEqualTo(new RedisAddress("redis.internal", 6380));
    assertThat(RedisAddress.parse("redis.internal").port()).isEqualTo(6379);
    assertThat(RedisAddress.parse("[::1]:7000")).isEqualTo(new RedisAddress("::1", 7000));
    assertThat(RedisAddress.parse("[::1]")).isEqualTo(new RedisAddress("::1", 6379));
    assertThat(RedisAddress.parse("[::1]:7000").toString()).isEqualTo("[::1]:7000");
    assertThat(RedisStoreConfig.builder("x").build().addresses()).containsExactly("x:6379");
    assertThatThrownBy(() -> RedisAddress.parse("::1:7000")).hasMessageContaining("bracketed");
    assertThatThrownBy(() -> RedisAddress.parse("host:http")).hasMessageContaining("'http'");
    assertThatThrownBy(() -> RedisAddress.parse("host:70000")).hasMessageContaining("'70000'");
    assertThatThrownBy(() -> RedisAddress.parse(":6379")).hasMessageContaining("no host");
    assertThatThrownBy(() -> RedisAddress.parse("[::1")).hasMessageContaining("'[::1'");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h:0").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'h:0'");
  }

  @Test
  void securitySettingsReachTheLettuceUri() {
    RedisStoreConfig c = RedisStoreConfig.builder("h:1").username("app").password("pw")
        .tls(true).tlsVerify(RedisStoreConfig.TlsVerify.CA).database(3).commandTimeout(Duration.ofMillis(700))
        .build();
    RedisURI uri = LettuceClients.uri("h:1", c);
    assertThat(uri.isSsl()).isTrue();
    assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.CA);
    assertThat(uri.getDatabase()).isEqualTo(3);
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofMillis(700));
    assertThat(uri.getCredentialsProvider().resolveCredentials().block().getUsername()).isEqualTo("app");
    assertThat(c.toString()).contains("password=***").doesNotContain("pw,").doesNotContain("=pw");
    assertThat(RedisStoreConfig.builder("h:1").caPemFiles(List.of(Path.of("ca.pem"))).build().tls()).isTrue();
  }

  @Test
  void everyBadSettingIsNamed() {
    assertThatThrownBy(() -> RedisStoreConfig.builder("a:1", "b:2").database(1).build())
        .hasMessageContaining("database 0");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").database(-1).build()).hasMessageContaining("database");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").username("u").build()).hasMessageContaining("username");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").caPemFiles(List.of(Path.of("ca.pem"))).tls(false).build())
        .hasMessageContaining("caPemFiles");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").commandTimeout(Duration.ZERO).build())
        .hasMessageContaining("commandTimeout");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").connectTimeout(null).build())
        .hasMessageContaining("connectTimeout");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").reconnectDelay(Duration.ofSeconds(2), Duration.ofSeconds(1))
        .build()).hasMessageContaining("reconnectDelay");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").requestQueueSize(0).build())
        .hasMessageContaining("requestQueueSize");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").tlsVerify(null).build()).hasMessageContaining("tlsVerify");
  }

  @Test
  void anUnreadableCaFileIsAConfigurationError() {
    assertThatThrownBy(() -> RedisStore.connect(
            RedisStoreConfig.builder("127.0.0.1:1").caPemFiles(List.of(Path.of("/nonexistent/ca.pem"))).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/nonexistent/ca.pem");
  }
}

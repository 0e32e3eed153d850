package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Safety;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Store URIs to {@link RedisStoreConfig} (no server needed). */
class RedisUriTest {

  @Test
  void plainUriUsesTheDefaults() {
    RedisStoreConfig c = RedisStoreConfig.fromUri("redis://127.0.0.1:6379");
    assertThat(c.addresses()).containsExactly("127.0.0.1:6379");
    assertThat(c.cluster()).isFalse();
    assertThat(c.tls()).isFalse();
    assertThat(c.database()).isZero();
    assertThat(c.username()).isNull();
    assertThat(c.password()).isNull();
    assertThat(c).isEqualTo(RedisStoreConfig.builder("127.0.0.1:6379").build());
    assertThat(c.describe()).isEqualTo("redis://127.0.0.1:6379");
  }

  @Test
  void portDefaultsTo6379AndADatabaseMayFollow() {
    assertThat(RedisStoreConfig.fromUri("redis://redis.internal").addresses()).containsExactly("redis.internal:6379");
    assertThat(RedisStoreConfig.fromUri("redis://h/3").database()).isEqualTo(3);
    assertThat(RedisStoreConfig.fromUri("redis://h:7000/0").database()).isZero();
    assertThat(RedisStoreConfig.fromUri("REDIS://h:7000/").addresses()).containsExactly("h:7000");
    assertThat(RedisStoreConfig.fromUri("  redis://h:7000/12  ").describe()).isEqualTo("redis://h:7000/12");
  }

  @Test
  void ipv6HostsAreBracketed() {
    assertThat(RedisStoreConfig.fromUri("redis://[::1]:6380/2").addresses()).containsExactly("[::1]:6380");
    assertThat(RedisStoreConfig.fromUri("redis://[fe80::1]").addresses()).containsExactly("[fe80::1]:6379");
    assertThat(LettuceClients.uri("[::1]:6380", RedisStoreConfig.fromUri("redis://[::1]:6380")).getHost())
        .isEqualTo("::1");
    assertThat(RedisStoreConfig.fromUri("redis-cluster://[::1]:7000,[::2]:7001").addresses())
        .containsExactly("[::1]:7000", "[::2]:7001");
  }

  @Test
  void userAndPasswordArePercentDecoded() {
    RedisStoreConfig c = RedisStoreConfig.fromUri("redis://app%40corp:p%40ss%3Aw%2Fo+rd%C3%BC@h:1");
    assertThat(c.username()).isEqualTo("app@corp");
    assertThat(c.password()).isEqualTo("p@ss:w/o+rdü");
    RedisStoreConfig noUser = RedisStoreConfig.fromUri("redis://:secret@h:1");
    assertThat(noUser.username()).isNull();
    assertThat(noUser.password()).isEqualTo("secret");
    assertThat(RedisStoreConfig.fromUri("redis://:raw/pa?ss@h:1/2").password())
        .as("the user info ends at the last '@'").isEqualTo("raw/pa?ss");
    assertThat(RedisStoreConfig.fromUri("redis://:a@b@h:1").password()).isEqualTo("a@b");
  }

  @Test
  void tlsAndClusterComeFromTheScheme() {
    assertThat(RedisStoreConfig.fromUri("rediss://h:6380").tls()).isTrue();
    RedisStoreConfig cluster = RedisStoreConfig.fromUri("redis-cluster://a:7000,b:7001,c:7002");
    assertThat(cluster.cluster()).isTrue();
    assertThat(cluster.tls()).isFalse();
    assertThat(cluster.addresses()).containsExactly("a:7000", "b:7001", "c:7002");
    RedisStoreConfig one = RedisStoreConfig.fromUri("rediss-cluster://:pw@seed:7000");
    assertThat(one.cluster()).as("one seed node is still a cluster").isTrue();
    assertThat(one.tls()).isTrue();
    assertThat(one.password()).isEqualTo("pw");
    assertThat(one.describe()).isEqualTo("rediss-cluster://seed:7000");
  }

  @Test
  void parametersSetTheirSettings() {
    RedisStoreConfig c = RedisStoreConfig.fromUri("rediss://h:1?ca=/a.pem,/etc/b%20c.pem&verify=CA&timeout=500ms"
        + "&connect_timeout=3s&client_name=my%20app&queue=50");
    assertThat(c.caPemFiles()).containsExactly(Path.of("/a.pem"), Path.of("/etc/b c.pem"));
    assertThat(c.tlsVerify()).isEqualTo(RedisStoreConfig.TlsVerify.CA);
    assertThat(c.commandTimeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(c.clientName()).isEqualTo("my app");
    assertThat(c.requestQueueSize()).isEqualTo(50);
    assertThat(RedisStoreConfig.fromUri("redis://h?timeout=1500").commandTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(RedisStoreConfig.fromUri("rediss://h?verify=none").tlsVerify()).isEqualTo(RedisStoreConfig.TlsVerify.NONE);
    assertThat(RedisStoreConfig.fromUri("redis://h/1?").database()).isEqualTo(1);
  }

  @Test
  void safetyParametersSetTheGuardTheMarginAndEviction() {
    RedisStoreConfig defaults = RedisStoreConfig.fromUri("redis://h");
    assertThat(defaults.lostStateGuard()).isEqualTo(Safety.DEFAULT_GUARD);
    assertThat(defaults.clockMargin()).isEqualTo(Safety.DEFAULT_CLOCK_MARGIN);
    assertThat(defaults.allowEviction()).isFalse();
    RedisStoreConfig c = RedisStoreConfig.fromUri("redis://h?guard=10s&clock_margin=250ms&allow_eviction=TRUE");
    assertThat(c.lostStateGuard()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.clockMargin()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.allowEviction()).isTrue();
    assertThat(RedisStoreConfig.fromUri("redis://h?guard=0&clock_margin=0ms").lostStateGuard()).isZero();
    assertThat(RedisStoreConfig.fromUri("redis://h?allow_eviction=false").allowEviction()).isFalse();
    assertThat(c.toString()).contains("lostStateGuard=PT10S", "clockMargin=PT0.25S", "allowEviction=true");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").lostStateGuard(Duration.ofMillis(-1)).build())
        .hasMessageContaining("lostStateGuard");
    assertThatThrownBy(() -> RedisStoreConfig.builder("h").clockMargin(null).build())
        .hasMessageContaining("clockMargin");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "redis://h:1?nope=1                     | unknown parameter 'nope'",
      "redis://h:1?timeout=2s&timeout=3s      | 'timeout' given twice",
      "redis://h:1?timeout=                   | 'timeout' needs a value",
      "redis://h:1?timeout                    | 'timeout' needs a value",
      "redis://h:1?timeout=2m                 | 'timeout=2m'",
      "redis://h:1?timeout=0                  | 'timeout=0'",
      "redis://h:1?connect_timeout=-1s        | 'connect_timeout=-1s'",
      "redis://h:1?queue=0                    | 'queue=0'",
      "redis://h:1?queue=many                 | 'queue=many'",
      "redis://h:1?ca=/a.pem                  | 'ca=/a.pem' needs TLS",
      "redis://h:1?verify=none                | 'verify=none' needs TLS",
      "rediss://h:1?verify=maybe              | 'verify=maybe'",
      "rediss://h:1?ca=/a.pem,,/b.pem         | empty file name",
      "redis://h:http                         | bad port 'http'",
      "redis://h:0                            | bad port '0'",
      "redis://h:65536                        | bad port '65536'",
      "redis://                               | no host",
      "redis://:6379                          | no host",
      "redis://::1:6379                       | bracketed",
      "redis://h:1/x                          | database 'x'",
      "redis://h:1/-1                         | database",
      "redis://a:1,b:2                        | several hosts 'a:1,b:2'",
      "redis-cluster://a:1,b:2/0              | Redis Cluster has no databases",
      "redis-cluster://a:1,,b:2               | empty Redis address",
      "http://h:1                             | unknown scheme 'http'",
      "h:6379                                 | expected scheme://",
      "redis://user@h:1                       | [user]:password",
      "redis://u:@h:1                         | empty password",
      "redis://u%zz:pw@h:1                    | percent-encoding in the user name",
      "redis://h:1?client_name=%C3            | percent-encoded UTF-8",
      "redis://h:1?guard=3m                   | 'guard=3m'",
      "redis://h:1?guard=-1s                  | 'guard=-1s'",
      "redis://h:1?clock_margin=soon          | 'clock_margin=soon'",
      "redis://h:1?allow_eviction=yes         | 'allow_eviction=yes' must be true or false",
  })
  void badUrisNameTheUriAndTheBadPart(String uri, String problem) {
    assertThatThrownBy(() -> RedisStoreConfig.fromUri(uri))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Redis URI '" + RedisUri.redact(uri.trim()) + "': ")
        .hasMessageContaining(problem);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "redis://:s3cret@h:http", "redis://app:s3cret@h:1?nope=1", "redis://s3cret@h:1", "redis://:s3/cret@h:0",
      "redis://app:s3cret@a:1,b:2", "rediss://:s3cret@h?verify=maybe", "redis://:s3%zzcret@h:1",
      "redis://:s3cret@h:1/x", "redis-cluster://:s3cret@a:1/2", "redis://:s3cret@",
  })
  void thePasswordNeverAppearsInAMessage(String uri) {
    assertThatThrownBy(() -> RedisStoreConfig.fromUri(uri))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cret")
        .hasMessageNotContaining("s3%zzcret")
        .satisfies(e -> assertThat(e.getCause() == null ? "" : e.getCause().getMessage()).doesNotContain("s3cret"));
  }

  @Test
  void redactionHidesEveryFormOfPassword() {
    assertThat(RedisUri.redact("redis://:s3cret@h:1/2")).isEqualTo("redis://:***@h:1/2");
    assertThat(RedisUri.redact("redis://app:s3cret@h:1")).isEqualTo("redis://app:***@h:1");
    assertThat(RedisUri.redact("redis://s3cret@h:1")).isEqualTo("redis://:***@h:1");
    assertThat(RedisUri.redact("redis://:s3/cr?et@h:1?timeout=1s")).isEqualTo("redis://:***@h:1?timeout=1s");
    assertThat(RedisUri.redact("redis://h:1?timeout=1s")).isEqualTo("redis://h:1?timeout=1s");
    RedisStoreConfig c = RedisStoreConfig.fromUri("redis://app:s3cret@h:1");
    assertThat(c.toString()).doesNotContain("s3cret").contains("password=***");
    assertThat(c.describe()).doesNotContain("s3cret").doesNotContain("app");
  }

  @Test
  void usageListsEveryForm() {
    assertThat(new RedisStoreProvider().usage()).contains("redis[s]://[[user]:password@]host[:port][/db]")
        .contains("redis[s]-cluster://").contains("host:port,host:port");
    for (String p : List.of("ca", "verify", "timeout", "connect_timeout", "client_name", "queue", "guard",
        "clock_margin", "allow_eviction")) {
      assertThat(new RedisStoreProvider().usage()).contains(p);
    }
    assertThat(new RedisStoreProvider().schemes()).containsExactlyInAnyOrder("redis", "rediss", "redis-cluster",
        "rediss-cluster");
  }
}

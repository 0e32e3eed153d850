package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The rule: the local servers when they answer (as on this machine and in CI), else throwaway ones. */
class TestServersTest {

  @Test
  void redisIsTheLocalOneWhenItAnswersElseAThrowawayOneThatDoes() throws Exception {
    String uri = TestServers.redisUri();
    assertThat(TestServers.redisUri()).as("one per JVM").isSameAs(uri);
    boolean local = localRedisAnswers();
    if (System.getenv("ALLOT_TEST_REDIS") == null) {
      assertThat(uri.equals(TestServers.LOCAL_REDIS)).isEqualTo(local);
    }
    int port = Integer.parseInt(uri.substring(uri.lastIndexOf(':') + 1));
    try (Resp r = Resp.connect("127.0.0.1", port, null, null, Duration.ofSeconds(5))) {
      assertThat(r.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void postgresIsTheLocalOneWhenItAnswersElseAThrowawayOneThatDoes() {
    String uri = TestServers.postgresUri();
    boolean local = PgProbe.refusal("127.0.0.1", 5432, "postgres", "test", Duration.ofSeconds(2)).isEmpty();
    if (System.getenv("ALLOT_TEST_POSTGRES") == null) {
      assertThat(uri.equals(TestServers.LOCAL_POSTGRES)).isEqualTo(local);
    }
    String hostPort = uri.substring(uri.indexOf('@') + 1, uri.lastIndexOf('/'));
    int port = Integer.parseInt(hostPort.substring(hostPort.indexOf(':') + 1));
    String database = uri.substring(uri.lastIndexOf('/') + 1);
    assertThat(PgProbe.refusal("127.0.0.1", port, "postgres", database, Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void theClusterIsAThrowawayOneSharedByTheJvm() {
    String uri = TestServers.redisClusterUri();
    assertThat(uri).startsWith("redis-cluster://127.0.0.1:").contains(",");
    assertThat(TestServers.redisClusterUri()).isSameAs(uri);
    String first = uri.substring("redis-cluster://".length()).split(",")[0];
    int port = Integer.parseInt(first.substring(first.indexOf(':') + 1));
    assertThat(port).isNotEqualTo(6379);
    try (Resp r = Resp.connect("127.0.0.1", port, null, null, Duration.ofSeconds(5))) {
      assertThat(r.call("CLUSTER", "INFO")).contains("cluster_state:ok");
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void withoutALocalServerAThrowawayOneIsUsedElseTheMessageSaysWhatWasTried() {
    int nothing = Ports.free();
    try (RedisServer own = RedisServer.start()) {
      assertThat(TestServers.findRedis(Optional.empty(), nothing, () -> own).get()).isEqualTo(own.uri());
    }
    Supplier<RedisServer> noRedis = () -> {
      throw new IllegalStateException("no redis-server binary");
    };
    assertThatThrownBy(() -> TestServers.findRedis(Optional.empty(), nothing, noRedis).get())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("$ALLOT_TEST_REDIS is not set")
        .hasMessageContaining("redis://127.0.0.1:" + nothing).hasMessageContaining("no redis-server binary");
    assertThat(TestServers.findRedis(Optional.of("10.1.2.3:7000"), nothing, noRedis).get())
        .isEqualTo("redis://10.1.2.3:7000");

    Supplier<PostgresServer> noPostgres = () -> {
      throw new IllegalStateException("no initdb");
    };
    assertThatThrownBy(() -> TestServers.findPostgres(Optional.empty(), nothing, noPostgres).get())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("$ALLOT_TEST_POSTGRES is not set")
        .hasMessageContaining("postgresql://postgres@127.0.0.1:" + nothing + "/test").hasMessageContaining("no initdb");
    assertThat(TestServers.findPostgres(Optional.of("postgresql://u@h/db"), nothing, noPostgres).get())
        .isEqualTo("postgresql://u@h/db");
  }

  private static boolean localRedisAnswers() {
    try (Resp r = Resp.connect("127.0.0.1", 6379, null, null, Duration.ofSeconds(2))) {
      return "PONG".equals(r.call("PING"));
    } catch (Exception e) {
      return false;
    }
  }
}

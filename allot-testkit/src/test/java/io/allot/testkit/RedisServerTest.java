package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisServerTest {

  @BeforeAll
  static void binary() {
    assertThat(RedisServer.available()).as("redis-server runs here").isTrue();
  }

  @Test
  void startsKillsPausesAndRestartsOnTheSamePort() {
    Path dir;
    try (RedisServer redis = RedisServer.start()) {
      dir = redis.dir();
      int port = redis.port();
      assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + port);
      assertThat(redis.command("SET", "k", "v")).isEqualTo("OK");
      assertThat(redis.cli("GET", "k")).isEqualTo("v");

      redis.pause();
      assertThat(redis.paused()).isTrue();
      assertThat(redis.answers()).as("a paused server answers nothing").isFalse();
      redis.resume();
      assertThat(redis.answers()).isTrue();

      long pid = redis.pid();
      redis.kill();
      assertThat(redis.alive()).isFalse();
      assertThat(ProcessHandle.of(pid)).isEmpty();
      assertThat(redis.answers()).isFalse();
      redis.restart();
      assertThat(redis.port()).isEqualTo(port);
      assertThat(redis.pid()).isNotEqualTo(pid);
      assertThat(redis.command("GET", "k")).as("no persistence: the data is gone").isNull();

      redis.pause();
      redis.restart(); // a paused server is killed too
      assertThat(redis.answers()).isTrue();
    }
    assertThat(Files.exists(dir)).as("close deletes the directory").isFalse();
  }

  @Test
  void appendOnlyDataSurvivesKillAndShutdown() {
    try (RedisServer redis = RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
      redis.command("SET", "k", "1");
      redis.kill();
      redis.restart();
      assertThat(redis.command("GET", "k")).isEqualTo("1");
      redis.command("SET", "k", "2");
      redis.pause();
      redis.shutdown(); // resumes first
      assertThat(redis.alive()).isFalse();
      redis.restart();
      assertThat(redis.command("GET", "k")).isEqualTo("2");
      assertThat(redis.command("CONFIG", "GET", "appendfsync")).isEqualTo("appendfsync\nalways");
    }
  }

  @Test
  void passwordAndExtraArguments() {
    try (RedisServer redis = RedisServer.builder().password("s3cret ü").args("--notify-keyspace-events", "Kl")
        .start()) {
      assertThat(redis.uri()).isEqualTo("redis://:s3cret%20%C3%BC@127.0.0.1:" + redis.port());
      assertThat(redis.command("CONFIG", "GET", "notify-keyspace-events")).isEqualTo("notify-keyspace-events\nlK");
      assertThat(redis.cli("PING")).isEqualTo("PONG");
      redis.restart();
      assertThat(redis.answers()).isTrue();
    }
  }

  @Test
  void listensOnAnotherAddressToo() throws Exception {
    try (RedisServer redis = RedisServer.builder().alsoListenOn("127.0.0.2").password("pw").start()) {
      assertThat(redis.uriAt("127.0.0.2")).isEqualTo("redis://:pw@127.0.0.2:" + redis.port());
      try (Resp r = Resp.connect("127.0.0.2", redis.port(), null, "pw", Duration.ofSeconds(5))) {
        assertThat(r.call("PING")).isEqualTo("PONG");
      }
      assertThatThrownBy(() -> redis.uriAt("127.0.0.3")).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("127.0.0.3");
    }
    assertThatThrownBy(() -> RedisServer.builder().alsoListenOn("10.203.0.256"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("address")
        .hasMessageContaining("10.203.0.256");
  }

  @Test
  void tls(@TempDir Path dir) {
    TlsFiles certs = TlsFiles.generate(dir);
    try (RedisServer redis = RedisServer.builder().tls(certs).start()) {
      assertThat(redis.uri()).isEqualTo("rediss://127.0.0.1:" + redis.port());
      assertThat(redis.command("PING")).isEqualTo("PONG");
      assertThat(redis.tls()).contains(certs);
    }
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> RedisServer.builder().appendFsync("sometimes"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("appendFsync").hasMessageContaining("sometimes");
    assertThatThrownBy(() -> RedisServer.builder().port(70_000)).hasMessageContaining("port");
    assertThatThrownBy(() -> RedisServer.builder().binary("/no/such/redis-server").start())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("/no/such/redis-server");
    assertThatThrownBy(() -> RedisServer.builder().args("--no-such-option", "x").start())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("exited").hasMessageContaining("no-such-option");
  }
}

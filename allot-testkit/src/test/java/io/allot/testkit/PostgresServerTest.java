package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresServerTest {

  @Test
  void startsKillsPausesAndRestartsWithItsData() {
    assertThat(PostgresServer.available()).isTrue();
    Path dir;
    try (PostgresServer pg = PostgresServer.builder().setting("max_connections", "20").start()) {
      dir = pg.dir();
      assertThat(pg.uri()).isEqualTo("postgresql://postgres@127.0.0.1:" + pg.port() + "/postgres");
      assertThat(pg.psql("SHOW max_connections")).isEqualTo("20");
      pg.psql("CREATE TABLE t (v int); INSERT INTO t VALUES (7)");

      pg.pause();
      assertThat(pg.answers()).as("a paused server lets nobody in").isFalse();
      pg.resume();
      assertThat(pg.answers()).isTrue();

      long pid = pg.pid().orElseThrow();
      pg.kill();
      assertThat(pg.alive()).isFalse();
      assertThat(pg.answers()).isFalse();
      pg.restart();
      assertThat(pg.pid()).isPresent().get().isNotEqualTo(pid);
      assertThat(pg.psql("SELECT v FROM t")).as("committed data survives a crash").isEqualTo("7");

      pg.shutdown();
      assertThat(pg.alive()).isFalse();
      pg.restart();
      assertThat(pg.psql("SELECT count(*) FROM t")).isEqualTo("1");
    }
    assertThat(Files.exists(dir)).isFalse();
  }

  @Test
  void listensOnAnotherAddressAndTrustsTheClientsItIsTold() {
    try (PostgresServer pg = PostgresServer.builder().alsoListenOn("127.0.0.2").trustClients("10.203.0.0/30").start()) {
      assertThat(pg.uriAt("127.0.0.2")).isEqualTo("postgresql://postgres@127.0.0.2:" + pg.port() + "/postgres");
      assertThat(PgProbe.refusal("127.0.0.2", pg.port(), PostgresServer.USER, "postgres", Duration.ofSeconds(5)))
          .isEmpty();
      assertThat(pg.psql("SELECT auth_method FROM pg_hba_file_rules WHERE address = '10.203.0.0'"))
          .isEqualTo("trust");
      assertThatThrownBy(() -> pg.uriAt("127.0.0.3")).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("127.0.0.3");
    }
    assertThatThrownBy(() -> PostgresServer.builder().trustClients("10.203.0.0")).hasMessageContaining("cidr");
    assertThatThrownBy(() -> PostgresServer.builder().alsoListenOn("*")).hasMessageContaining("address");
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> PostgresServer.builder().setting("work_mem", "1 MB; DROP"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("work_mem");
    assertThatThrownBy(() -> PostgresServer.builder().binDir(Path.of("/nowhere")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/nowhere");
  }
}

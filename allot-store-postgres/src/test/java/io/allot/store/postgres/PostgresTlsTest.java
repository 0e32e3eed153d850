package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.allot.store.MemberMeta;
import io.allot.testkit.PostgresServer;
import io.allot.testkit.TestCa;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL store over TLS: a throwaway cluster started with {@code ssl=on} and a certificate from a CA made in
 * the test, {@code hostssl} only; {@code sslmode}/{@code sslrootcert} in the store URI go to pgjdbc.
 */
class PostgresTlsTest {
  @TempDir
  Path dir;

  @BeforeAll
  static void tools() {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
    assumeThat(PostgresServer.available()).as("PostgreSQL server binaries").isTrue();
  }

  @Test
  void theStoreConnectsOverVerifiedTlsAndPlainTextOrAnUntrustedRootIsRefused() throws Exception {
    TestCa ca = TestCa.create(dir.resolve("ca"));
    TestCa.Issued cert = ca.issue("postgres");
    TestCa other = TestCa.create(dir.resolve("other"));
    try (PostgresServer pg = PostgresServer.builder().tls(cert.cert(), cert.key(), true).start()) {
      String verified = pg.uri() + "?sslmode=verify-full&sslrootcert=" + ca.cert();
      try (PostgresStore store = PostgresStore.connect(verified, "allot_tls")) {
        assertThat(store.membership("p").register("127.0.0.1:1", MemberMeta.DEFAULT, java.time.Duration.ofSeconds(5))).isPositive();
        assertThat(store.membership("p").members()).containsKey("127.0.0.1:1");
      }
      PostgresUrl url = PostgresUrl.parse(verified);
      try (Connection c = DriverManager.getConnection(url.jdbcUrl(), url.properties());
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getBoolean(1)).as("this connection is encrypted").isTrue();
      }
      assertThatThrownBy(() -> PostgresStore.connect(pg.uri() + "?sslmode=disable", "allot_tls").close())
          .hasStackTraceContaining("no encryption");
      assertThatThrownBy(() -> PostgresStore.connect(pg.uri() + "?sslmode=verify-full&sslrootcert=" + other.cert(),
          "allot_tls").close()).hasStackTraceContaining("PKIX");
    }
  }
}

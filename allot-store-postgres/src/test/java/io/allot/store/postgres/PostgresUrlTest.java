package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Safety;
import io.allot.store.Stores;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostgresUrlTest {

  @Test
  void libpqUriBecomesAJdbcUrlWithCredentialsAsProperties() {
    PostgresUrl u = PostgresUrl.parse("postgresql://alice:s3cret@db.example:5433/allot?sslmode=require");
    assertThat(u.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:5433/allot?sslmode=require");
    assertThat(u.user()).isEqualTo("alice");
    assertThat(u.password()).isEqualTo("s3cret");
    assertThat(u.schema()).isNull();
    assertThat(u.description()).isEqualTo("postgresql://alice@db.example:5433/allot").doesNotContain("s3cret");
    assertThat(u.toString()).doesNotContain("s3cret");
    assertThat(u.properties()).containsEntry("user", "alice").containsEntry("password", "s3cret");
  }

  @Test
  void postgresSchemeDefaultsAndPercentEncoding() {
    PostgresUrl u = PostgresUrl.parse("postgres://bob:p%40ss%3Aw%2Fo+rd@host/my%20db");
    assertThat(u.user()).isEqualTo("bob");
    assertThat(u.password()).isEqualTo("p@ss:w/o+rd");
    assertThat(u.jdbcUrl()).isEqualTo("jdbc:postgresql://host:5432/my%20db");
    assertThat(PostgresUrl.parse("postgresql://").jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/");
    assertThat(PostgresUrl.parse("postgresql://h").user()).isNull();
    assertThat(PostgresUrl.parse("POSTGRESQL://h:1/d").jdbcUrl()).isEqualTo("jdbc:postgresql://h:1/d");
  }

  @Test
  void severalHostsAndIpv6() {
    assertThat(PostgresUrl.parse("postgresql://u@h1:5432,h2:5433,h3/db").jdbcUrl())
        .isEqualTo("jdbc:postgresql://h1:5432,h2:5433,h3:5432/db");
    assertThat(PostgresUrl.parse("postgresql://[::1]:6000/db").jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:6000/db");
    assertThat(PostgresUrl.parse("postgresql://[fe80::1]/db").jdbcUrl())
        .isEqualTo("jdbc:postgresql://[fe80::1]:5432/db");
  }

  @Test
  void libpqParametersAreRenamedAndAllotSchemaIsTakenOut() {
    PostgresUrl u = PostgresUrl.parse("postgresql://h/db?connect_timeout=5&application_name=my%20app"
        + "&target_session_attrs=read-write&allot_schema=tenant_a&sslmode=verify-full&user=carol&password=pw");
    assertThat(u.jdbcUrl()).isEqualTo("jdbc:postgresql://h:5432/db?connectTimeout=5&ApplicationName=my%20app"
        + "&targetServerType=primary&sslmode=verify-full");
    assertThat(u.schema()).isEqualTo("tenant_a");
    assertThat(u.user()).isEqualTo("carol");
    assertThat(u.password()).isEqualTo("pw");
    assertThat(u.description()).isEqualTo("postgresql://carol@h:5432/db");
  }

  @Test
  void jdbcUrlsPassThroughWithoutTheSchemaParameter() {
    PostgresUrl u = PostgresUrl.parse("jdbc:postgresql://h:5432/db?user=dave&password=s3cret&allot_schema=x&ssl=true");
    assertThat(u.jdbcUrl()).isEqualTo("jdbc:postgresql://h:5432/db?user=dave&password=s3cret&ssl=true");
    assertThat(u.schema()).isEqualTo("x");
    assertThat(u.user()).isNull();
    assertThat(u.description()).isEqualTo("jdbc:postgresql://h:5432/db?user=dave&ssl=true");
    assertThat(PostgresUrl.parse("jdbc:postgresql://h/db").jdbcUrl()).isEqualTo("jdbc:postgresql://h/db");
  }

  /**
   * A parameter that is neither allot's nor the driver's is refused (the driver ignores unknown names, so
   * {@code ?schema=x} used to connect to the default schema and write there), in either form, naming it.
   */
  @Test
  void anUnknownParameterIsRefusedNamingItInsteadOfBeingIgnored() {
    assertThatThrownBy(() -> PostgresUrl.parse("postgresql://u:s3cret@h/db?schema=x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown parameter 'schema'").hasMessageContaining("allot_schema")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> PostgresUrl.parse("jdbc:postgresql://h/db?sslmod=require"))
        .hasMessageContaining("unknown parameter 'sslmod'");
    assertThatThrownBy(() -> PostgresUrl.parse("postgresql://h/db?allot_shema=x"))
        .hasMessageContaining("allot_shema");
    assertThat(PostgresUrl.parse("postgresql://h/db?sslmode=disable&tcpKeepAlive=true&currentSchema=app").jdbcUrl())
        .isEqualTo("jdbc:postgresql://h:5432/db?sslmode=disable&tcpKeepAlive=true&currentSchema=app");
  }

  @Test
  void badUrlsAreRefusedWithoutShowingThePassword() {
    assertThatThrownBy(() -> PostgresUrl.parse("mysql://u:s3cret@h/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> PostgresUrl.parse("postgresql://u:s3cret@h:99999/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad port")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> PostgresUrl.parse("postgresql://u:s3cret@%2Fvar%2Frun%2Fpostgresql/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unix-domain")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> PostgresUrl.parse("postgresql://h/db?host=/tmp"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PostgresUrl.parse("postgresql://h/db?target_session_attrs=weird"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void configSchemaPrecedenceAndValidation() {
    assertThat(PostgresStoreConfig.builder("postgresql://h/db").build().schema())
        .isEqualTo(PostgresStoreConfig.DEFAULT_SCHEMA);
    assertThat(PostgresStoreConfig.builder("postgresql://h/db?allot_schema=from_url").build().schema())
        .isEqualTo("from_url");
    assertThat(PostgresStoreConfig.builder("postgresql://h/db?allot_schema=from_url").schema("explicit").build()
        .schema()).isEqualTo("explicit");
    assertThatThrownBy(() -> PostgresStoreConfig.builder("postgresql://h/db").schema("Bad-Name").build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PostgresStoreConfig.builder("postgresql://h/db").schema("x".repeat(64)).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(PostgresStoreConfig.builder("postgresql://u:pw@h/db").build().describe())
        .isEqualTo("postgresql://u@h:5432/db (schema allot)");
  }

  @Test
  void safetyParametersAreTakenOutOfEitherFormAndParsed() {
    PostgresUrl u = PostgresUrl.parse("postgresql://h/db?allot_guard=3s&sslmode=require&allot_clock_margin=250ms");
    assertThat(u.jdbcUrl()).isEqualTo("jdbc:postgresql://h:5432/db?sslmode=require");
    assertThat(u.guard()).isEqualTo(Duration.ofSeconds(3));
    assertThat(u.clockMargin()).isEqualTo(Duration.ofMillis(250));
    PostgresUrl j = PostgresUrl.parse("jdbc:postgresql://h/db?allot_guard=1.5s&ssl=true&allot_clock_margin=0ms");
    assertThat(j.jdbcUrl()).isEqualTo("jdbc:postgresql://h/db?ssl=true");
    assertThat(j.guard()).isEqualTo(Duration.ofMillis(1500));
    assertThat(j.clockMargin()).isZero();
    assertThat(PostgresUrl.parse("postgresql://h/db?allot_guard=2m").guard()).isEqualTo(Duration.ofMinutes(2));
    assertThat(PostgresUrl.parse("postgresql://h/db").guard()).isNull();

    assertThatThrownBy(() -> PostgresUrl.parse("postgresql://u:s3cret@h/db?allot_gaurd=3s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown parameter 'allot_gaurd'")
        .hasMessageNotContaining("s3cret");
    for (String bad : List.of("3", "3 s", "-1s", "3h", "", "1e3ms")) {
      assertThatThrownBy(() -> PostgresUrl.parse("jdbc:postgresql://h/db?password=s3cret&allot_clock_margin=" + bad))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("allot_clock_margin must be a duration")
          .hasMessageNotContaining("s3cret");
    }
  }

  @Test
  void configSafetyPrecedenceAndStatementTimeout() {
    PostgresStoreConfig defaults = PostgresStoreConfig.builder("postgresql://h/db").build();
    assertThat(defaults.lostStateGuard()).isEqualTo(Safety.DEFAULT_GUARD);
    assertThat(defaults.clockMargin()).isEqualTo(Safety.DEFAULT_CLOCK_MARGIN);
    PostgresStoreConfig fromUrl =
        PostgresStoreConfig.builder("postgresql://h/db?allot_guard=5s&allot_clock_margin=1s").build();
    assertThat(fromUrl.lostStateGuard()).isEqualTo(Duration.ofSeconds(5));
    assertThat(fromUrl.clockMargin()).isEqualTo(Duration.ofSeconds(1));
    PostgresStoreConfig explicit = PostgresStoreConfig.builder("postgresql://h/db?allot_guard=5s")
        .lostStateGuard(Duration.ofSeconds(7)).clockMargin(Duration.ofMillis(50)).build();
    assertThat(explicit.lostStateGuard()).isEqualTo(Duration.ofSeconds(7));
    assertThat(explicit.clockMargin()).isEqualTo(Duration.ofMillis(50));
    assertThatThrownBy(() -> PostgresStoreConfig.builder("postgresql://h/db").clockMargin(Duration.ofMillis(-1))
        .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clockMargin");

    assertThat(defaults.statementTimeout()).as("socket timeout 10 s").isEqualTo(Duration.ofSeconds(9));
    assertThat(PostgresStoreConfig.builder("postgresql://h/db").socketTimeout(Duration.ofMillis(1200)).build()
        .statementTimeout()).as("the driver rounds 1.2 s up to 2 s").isEqualTo(Duration.ofMillis(1500));
    assertThat(PostgresStoreConfig.builder("postgresql://h/db").socketTimeout(Duration.ofSeconds(1)).build()
        .statementTimeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(PostgresStoreConfig.builder("postgresql://h/db").socketTimeout(Duration.ofSeconds(60)).build()
        .statementTimeout()).isEqualTo(Duration.ofSeconds(54));
  }

  @Test
  void storesOpenRefusesBadPostgresUrisNamingThemWithoutThePassword() {
    assertThatThrownBy(() -> Stores.open("postgresql://alice:s3cret@h:99999/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("postgresql://alice:***@h:99999/db")
        .hasMessageContaining("bad port")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> Stores.open("postgres://h/db?password=s3cret&allot_schema=Bad-Name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("postgres://h/db?password=***&allot_schema=Bad-Name")
        .hasMessageContaining("schema name")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> Stores.open("postgresql://h/db?host=/tmp"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("postgresql://h/db?host=/tmp");
    assertThat(new PostgresStoreProvider().schemes()).containsExactlyInAnyOrder("postgresql", "postgres");
    assertThat(Stores.forms()).contains("postgresql://");
  }
}

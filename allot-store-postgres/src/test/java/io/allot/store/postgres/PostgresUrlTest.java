package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}

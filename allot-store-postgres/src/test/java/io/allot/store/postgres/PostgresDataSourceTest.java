package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.testkit.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PostgresStore#connect(javax.sql.DataSource, String)} on an application's own pool (HikariCP, as Spring Boot
 * makes one) to the test server, in a schema of the test's own: the store works, including LISTEN/NOTIFY, names the
 * database without the password, and closing it leaves the pool open with connections free of allot's session
 * settings.
 */
class PostgresDataSourceTest {
  private static final int APP_POOL = 4;
  private final TestSchema schema = TestSchema.random();
  private final HikariDataSource app = appPool();

  @AfterEach
  void closeAll() {
    app.close();
    schema.close();
  }

  private static HikariDataSource appPool() {
    PostgresUrl u = PostgresUrl.parse(TestServers.postgresUri());
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("the-application");
    hc.setJdbcUrl(u.jdbcUrl());
    hc.setUsername(u.user());
    hc.setPassword(u.password());
    hc.setMaximumPoolSize(APP_POOL);
    return new HikariDataSource(hc);
  }

  @Test
  void theStoreWorksThroughTheApplicationsPoolAndLeavesItOpen() throws Exception {
    PostgresStore store = PostgresStore.connect(app, schema.name());
    try {
      assertThat(store.schema()).isEqualTo(schema.name());
      assertThat(store.describe()).contains(schema.name()).doesNotContain(String.valueOf(
          PostgresUrl.parse(TestServers.postgresUri()).password()));
      assertThat(store.clock().timeMillis()).isPositive();
      BlockingQueue<String> got = new LinkedBlockingQueue<>();
      try (Subscription ignored = store.notifications().subscribe(Topic.named("ds-chan"), got::add)) {
        store.notifications().publish(Topic.named("ds-chan"), "hello");
        assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
      }
      assertThat(app.getHikariPoolMXBean().getTotalConnections()).isPositive();
    } finally {
      store.close();
    }
    assertThat(app.isClosed()).isFalse();
    List<Connection> all = new ArrayList<>();
    try {
      for (int i = 0; i < APP_POOL; i++) {
        all.add(app.getConnection());
      }
      for (Connection c : all) {
        assertThat(single(c, "SHOW statement_timeout")).isEqualTo("0");
        assertThat(single(c, "SELECT count(*) FROM pg_listening_channels()")).isEqualTo("0");
      }
    } finally {
      for (Connection c : all) {
        c.close();
      }
    }
  }

  @Test
  void settingsApplyAndTheSchemaIsMigrated() throws SQLException {
    try (PostgresStore store = PostgresStore.connect(app, b -> b.schema(schema.name()).maxPoolSize(1)
        .clockMargin(Duration.ofMillis(321)))) {
      assertThat(store.config().maxPoolSize()).isEqualTo(1);
      assertThat(store.safety().clockMargin()).isEqualTo(Duration.ofMillis(321));
      try (Connection c = app.getConnection()) {
        assertThat(single(c, "SELECT count(*) FROM information_schema.tables WHERE table_schema = '"
            + schema.name() + "'")).isNotEqualTo("0");
      }
    }
  }

  @Test
  void aDataSourceThatGivesNoConnectionIsUnavailable() {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/nothing");
    hc.setInitializationFailTimeout(-1);
    hc.setConnectionTimeout(300);
    try (HikariDataSource nowhere = new HikariDataSource(hc)) {
      assertThatThrownBy(() -> PostgresStore.connect(nowhere, schema.name()))
          .isInstanceOf(io.allot.store.StoreUnavailableException.class).hasMessageContaining("DataSource");
      assertThat(nowhere.isClosed()).isFalse();
    }
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}

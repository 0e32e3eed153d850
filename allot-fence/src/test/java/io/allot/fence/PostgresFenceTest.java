package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** {@link JdbcFence} on PostgreSQL (TestServers' server), in a schema of its own per test. */
class PostgresFenceTest extends JdbcFenceContract {
  private final String schema = "fence_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);

  private void createSchema() throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
  }

  @Override
  @BeforeEach
  void createTables() throws SQLException {
    createSchema(); // JUnit runs a superclass's @BeforeEach first: the schema must exist before the tables
    super.createTables();
  }

  @Override
  void drop() throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Override
  Connection connect() throws SQLException {
    return TestDbs.postgres();
  }

  @Override
  DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(TestDbs.postgresJdbcUrl());
    return ds;
  }

  @Override
  String fenceTable() {
    return schema + ".allot_fence"; // schema-qualified on purpose
  }

  @Override
  String dataTable() {
    return schema + ".site_data";
  }

  @Override
  String sessionIdQuery() {
    return "SELECT pg_backend_pid()";
  }

  @Override
  String lockWaitQuery() {
    return "SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'";
  }

  @Test
  void theDialectIsFoundFromTheConnection() throws SQLException {
    try (Connection c = connect()) {
      assertThat(JdbcFence.Dialect.of(c)).isEqualTo(JdbcFence.Dialect.POSTGRESQL);
    }
    assertThat(fence.createTableSql(JdbcFence.Dialect.POSTGRESQL).toLowerCase(Locale.ROOT))
        .isEqualTo("create table if not exists " + schema + ".allot_fence (resource text primary key, token bigint not null)");
  }

  /** As the Javadoc says: under REPEATABLE READ the waiting older owner gets a serialization failure instead. */
  @Test
  void underRepeatableReadTheWaitingOlderOwnerGetsASerializationFailure() throws Exception {
    committedWrite(R, 1, "seed");
    Connection newer = tx();
    Connection older = tx();
    older.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    long olderSession = sessionId(older); // also takes older's snapshot
    write(newer, R, 6, "newer");
    Future<?> olderWrite = pool.submit(() -> {
      write(older, R, 5, "older");
      return null;
    });
    try (Connection observer = connect()) {
      await().until(() -> waitsForLock(observer, olderSession));
    }
    newer.commit();
    assertThatThrownBy(olderWrite::get).isInstanceOf(ExecutionException.class).cause()
        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("40001"));
    older.rollback();
    // the retry gets the plain answer
    Connection retry = tx();
    retry.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    assertThatThrownBy(() -> write(retry, R, 5, "older")).isInstanceOf(StaleTokenException.class);
    retry.rollback();
    assertThat(rows(R)).containsExactly("seed@1", "newer@6");
  }
}

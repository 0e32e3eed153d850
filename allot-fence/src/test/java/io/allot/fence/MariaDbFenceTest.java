package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;

/** {@link JdbcFence} on MariaDB (InnoDB), tables of its own per test. */
class MariaDbFenceTest extends JdbcFenceContract {
  private final String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
  private String url;

  @Override
  Connection connect() throws SQLException {
    if (url == null) {
      url = TestDbs.mariaDbJdbcUrl();
    }
    return DriverManager.getConnection(url);
  }

  @Override
  void drop() throws SQLException {
    if (url == null) {
      return; // skipped: no MariaDB
    }
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + fenceTable() + ", " + dataTable());
    }
  }

  @Override
  DataSource dataSource() {
    try {
      return new MariaDbDataSource(url);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  String fenceTable() {
    return "allot_fence_" + suffix;
  }

  @Override
  String dataTable() {
    return "site_data_" + suffix;
  }

  @Override
  String sessionIdQuery() {
    return "SELECT CONNECTION_ID()";
  }

  @Override
  String lockWaitQuery() {
    // a row lock wait shows in INNODB_TRX; a wait for the table's metadata lock (the first statement on a table
    // another open transaction created or read) shows only in the process list; and a statement on these few rows
    // still running after 2 s can only be waiting (seen twice under full parallel builds: the session's wait showed
    // in neither view)
    return "SELECT count(*) FROM information_schema.PROCESSLIST p LEFT JOIN information_schema.INNODB_TRX t"
        + " ON t.trx_mysql_thread_id = p.ID WHERE p.ID = ? AND (t.trx_state = 'LOCK WAIT' OR p.STATE LIKE '%lock%'"
        + " OR (p.COMMAND = 'Query' AND p.TIME_MS >= 2000))";
  }

  @Test
  void theDialectIsFoundFromTheConnection() throws SQLException {
    try (Connection c = connect()) {
      assertThat(JdbcFence.Dialect.of(c)).isEqualTo(JdbcFence.Dialect.MARIADB);
    }
  }

  /** VARBINARY resource names: no trailing-space padding, no case folding (the contract checks case). */
  @Test
  void resourceNamesCompareExactly() throws SQLException {
    committedWrite("site-9", 30, "a");
    committedWrite("site-9 ", 2, "b");
    assertThat(inForce("site-9")).hasValue(30);
    assertThat(inForce("site-9 ")).hasValue(2);
  }
}

package io.allot.store.postgres;

import io.allot.testkit.TestServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;

/**
 * A schema of a test's own, with a random name, on the PostgreSQL of {@link TestServers#postgresUri()}: stores open
 * it by {@link #uri()} (the first creates it), {@link #close()} drops it with everything in it. Also plain JDBC
 * connections to that server ({@link #raw()}: pgjdbc, which the testkit does not have) to check the raw layout.
 *
 * @param name the schema's name, {@code allot_test_} and 12 random hex digits
 */
record TestSchema(String name) implements AutoCloseable {

  /** A new schema name, not created yet. */
  static TestSchema random() {
    return new TestSchema("allot_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
  }

  /** The test server's store URI with {@code allot_schema} set to this schema. */
  String uri() {
    String server = TestServers.postgresUri();
    return server + (server.contains("?") ? "&" : "?") + PostgresUrl.SCHEMA_PARAM + "=" + name;
  }

  /** Connects a store to this schema (creating or migrating it), with the default settings. */
  PostgresStore connect() {
    return PostgresStore.connect(uri());
  }

  /** The quoted name, for SQL. */
  String quoted() {
    return SchemaMigrator.quote(name);
  }

  /** A plain JDBC connection (autocommit) to the test server. */
  static Connection raw() throws SQLException {
    PostgresUrl u = PostgresUrl.parse(TestServers.postgresUri());
    Properties p = u.properties();
    p.setProperty("connectTimeout", "3");
    return DriverManager.getConnection(u.jdbcUrl(), p);
  }

  /** How many backends run a statement naming this schema while waiting for a lock. */
  long lockWaiters() {
    return backends("wait_event_type = 'Lock'");
  }

  /** How many other backends are running a statement naming this schema. */
  long activeStatements() {
    return backends("state = 'active' AND pid <> pg_backend_pid()");
  }

  private long backends(String condition) {
    try (Connection c = raw(); PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity "
        + "WHERE " + condition + " AND strpos(query, ?) > 0")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read pg_stat_activity: " + e.getMessage(), e);
    }
  }

  /** Drops the schema and everything in it, if it was created. */
  @Override
  public void close() {
    try (Connection c = raw(); Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + quoted() + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop the test schema " + name + ": " + e.getMessage(), e);
    }
  }
}

package io.allot.store.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.UUID;

/**
 * The server the tests run on: {@code $ALLOT_TEST_POSTGRES} (a {@code postgresql://} or {@code jdbc:postgresql:} URL),
 * else the local server at 127.0.0.1:5432 (user postgres, database test, trust auth), else a throwaway cluster
 * started once for this JVM; tests are skipped with a message if none of these works. Each test class works in its
 * own random schema and drops it afterwards.
 */
final class TestPostgres {
  static final String DEFAULT = "postgresql://postgres@127.0.0.1:5432/test";
  private static String url;
  private static PgCluster cluster;

  private TestPostgres() {}

  static synchronized String url() {
    if (url != null) {
      return url;
    }
    String configured = System.getenv("ALLOT_TEST_POSTGRES");
    String candidate = configured != null && !configured.isBlank() ? configured.trim() : DEFAULT;
    if (reachable(candidate) || configured != null) {
      url = candidate;
      return url;
    }
    cluster = PgCluster.startOrSkip();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
    url = cluster.url("postgres");
    return url;
  }

  static String randomSchema() {
    return "allot_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  /** A plain JDBC connection (autocommit) to the test server, for checking the raw layout and cleaning up. */
  static Connection raw() throws SQLException {
    PostgresUrl u = PostgresUrl.parse(url());
    Properties p = u.properties();
    p.setProperty("connectTimeout", "3");
    return DriverManager.getConnection(u.jdbcUrl(), p);
  }

  static void dropSchema(String schema) {
    try (Connection c = raw(); var st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + SchemaMigrator.quote(schema) + " CASCADE");
    } catch (SQLException e) {
      System.err.println("cannot drop schema " + schema + ": " + e.getMessage());
    }
  }

  private static boolean reachable(String candidate) {
    PostgresUrl u = PostgresUrl.parse(candidate);
    Properties p = u.properties();
    p.setProperty("connectTimeout", "2");
    try (Connection c = DriverManager.getConnection(u.jdbcUrl(), p)) {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }
}

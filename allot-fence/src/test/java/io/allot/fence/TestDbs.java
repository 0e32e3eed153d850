package io.allot.fence;

import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import io.lettuce.core.RedisURI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/** Where the tests find their servers: {@link TestServers} for PostgreSQL and Redis, the rule below for MariaDB. */
final class TestDbs {
  /** The local MariaDB this machine kind runs (root, no password, database test). */
  static final String LOCAL_MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

  private TestDbs() {}

  /** TestServers' PostgreSQL as a JDBC URL. */
  static String postgresJdbcUrl() {
    return PostgresSchema.serverJdbcUrl();
  }

  static Connection postgres() throws SQLException {
    return DriverManager.getConnection(postgresJdbcUrl());
  }

  /**
   * {@code $ALLOT_TEST_MARIADB} (a JDBC URL) if set, else {@link #LOCAL_MARIADB}. If that does not answer, the test
   * is skipped, except under CI ({@code $CI} set), where MariaDB runs and its absence fails the build.
   */
  static String mariaDbJdbcUrl() {
    String url = Optional.ofNullable(System.getenv("ALLOT_TEST_MARIADB")).filter(s -> !s.isBlank()).orElse(LOCAL_MARIADB);
    try {
      DriverManager.getConnection(url).close();
      return url;
    } catch (SQLException e) {
      String why = "no MariaDB at " + url + " ($ALLOT_TEST_MARIADB to point elsewhere): " + e.getMessage();
      if (System.getenv("CI") != null) {
        throw new IllegalStateException(why, e);
      }
      Assumptions.abort(why);
      throw new AssertionError(why); // not reached
    }
  }

  /** TestServers' Redis Cluster ({@code redis-cluster://h1:p1,h2:p2,...}) as Lettuce seed URIs. */
  static List<RedisURI> redisClusterSeeds() {
    String uri = TestServers.redisClusterUri();
    List<RedisURI> seeds = new ArrayList<>();
    for (String hostPort : uri.substring("redis-cluster://".length()).split(",")) {
      seeds.add(RedisURI.create("redis://" + hostPort));
    }
    return seeds;
  }

}

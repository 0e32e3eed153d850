package io.allot.testkit;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A schema of a test's own on the PostgreSQL of {@link TestServers#postgresUri()}: stores open it by {@link #uri()}
 * (the first creates it), {@link #close()} drops it with everything in it. Tests never use the default schema
 * {@code allot}: a shared server may hold another allot version's schema there.
 *
 * @param name the schema's name: the prefix, {@code _} and 12 random hex digits
 * @param uri  the store URI with {@code allot_schema} set to it
 */
public record PostgresSchema(String name, String uri) implements AutoCloseable {

  /**
   * A new schema name under {@code prefix} (lower case letters, digits, {@code _}), not created yet.
   *
   * @throws IllegalStateException if there is no test PostgreSQL (see {@link TestServers#postgresUri()})
   */
  public static PostgresSchema create(String prefix) {
    if (!prefix.matches("[a-z][a-z0-9_]{0,40}")) {
      throw new IllegalArgumentException("schema prefix must be lower case letters, digits and _ but was '"
          + prefix + "'");
    }
    String name = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String server = TestServers.postgresUri();
    return new PostgresSchema(name, server + (server.contains("?") ? "&" : "?") + "allot_schema=" + name);
  }

  /** The test server ({@code postgresql://user[:password]@host:port/db?params}) as a JDBC URL. */
  public static String serverJdbcUrl() {
    URI u = URI.create(TestServers.postgresUri());
    StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(u.getHost());
    if (u.getPort() > 0) {
      jdbc.append(':').append(u.getPort());
    }
    jdbc.append(u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath());
    List<String> params = new ArrayList<>();
    if (u.getUserInfo() != null) {
      String[] userPassword = u.getUserInfo().split(":", 2);
      params.add("user=" + URLEncoder.encode(userPassword[0], StandardCharsets.UTF_8));
      if (userPassword.length == 2) {
        params.add("password=" + URLEncoder.encode(userPassword[1], StandardCharsets.UTF_8));
      }
    }
    if (u.getRawQuery() != null) {
      params.add(u.getRawQuery());
    }
    return params.isEmpty() ? jdbc.toString() : jdbc + "?" + String.join("&", params);
  }

  /** Drops the schema with everything in it (nothing if it was never created). */
  @Override
  public void close() {
    try (Connection c = DriverManager.getConnection(serverJdbcUrl()); Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop test schema " + name + ": " + e.getMessage(), e);
    }
  }
}

package io.allot.fence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Makes writes to a SQL database conditional on the writer's fencing token: one row per fenced resource in a fence
 * table, {@code (resource, token)}, holds the largest token that has written to the resource.
 * {@link #check(Connection, String, long)}, run in the caller's own transaction <em>before</em> the write, raises the
 * row's token to the offered one when it is at least the stored one, and otherwise throws
 * {@link StaleTokenException}. The check leaves the row locked until the caller's transaction ends, so an older owner
 * whose write runs concurrently waits for the newer one to commit and then fails: a late write of an owner whose lease
 * ran out can never commit after (nor interleave with) a write of the owner that replaced it.
 *
 * <pre>{@code
 * JdbcFence fence = JdbcFence.builder().table("allot_fence").build();
 * fence.createTableIfMissing(conn);                  // once, at start-up (or put fence.createTableSql(...) in a migration)
 * conn.setAutoCommit(false);
 * fence.check(conn, "site-42", unit.token());        // first: throws StaleTokenException if a newer owner wrote
 * ... the write ...
 * conn.commit();                                     // on any exception: conn.rollback()
 * }</pre>
 *
 * <p>{@link #inTransaction(DataSource, String, long, Work)} does all of that for a unit of work. Tokens of different
 * resources are independent; fence a resource with the tokens of one unit's owners (normally the resource is the
 * unit, or something only that unit writes). Fence rows are never deleted by this class: deleting one would let a
 * stale owner write again.
 *
 * <p>Isolation: under READ COMMITTED (the default of PostgreSQL) a stale check fails with
 * {@link StaleTokenException}. Under REPEATABLE READ or SERIALIZABLE, PostgreSQL may instead abort a check that
 * waited for a newer owner's commit with a serialization failure (SQLState 40001); a retry of the transaction then
 * gets the {@link StaleTokenException}. MariaDB's locking read sees the newest row at any isolation level.
 *
 * <p>Immutable and thread-safe. JDBC failures are thrown as the driver's {@link SQLException}, unwrapped, so that
 * callers keep the SQLState their retry logic needs.
 */
public final class JdbcFence {
  /** The default fence table. */
  public static final String DEFAULT_TABLE = "allot_fence";

  private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

  private final String table;
  /** Null: found from each connection's metadata. */
  private final Dialect dialect;

  private JdbcFence(Builder b) {
    this.table = b.table;
    this.dialect = b.dialect;
  }

  /** A fence on the table {@value #DEFAULT_TABLE}, dialect found from each connection. */
  public static JdbcFence create() {
    return builder().build();
  }

  /** A builder: table {@value #DEFAULT_TABLE}, dialect found from each connection. */
  public static Builder builder() {
    return new Builder();
  }

  /** The fence table's name. */
  public String table() {
    return table;
  }

  /**
   * The SQL databases the fence speaks: one statement of its own for PostgreSQL, two for MariaDB (which has no
   * conditional upsert).
   */
  public enum Dialect {
    /** PostgreSQL 9.5+: {@code INSERT ... ON CONFLICT (resource) DO UPDATE ... WHERE stored <= offered}. */
    POSTGRESQL,
    /**
     * MariaDB (InnoDB): {@code INSERT ... ON DUPLICATE KEY UPDATE token = GREATEST(token, offered)}, then
     * {@code SELECT ... FOR UPDATE}. The syntax is MySQL's too, but only MariaDB is tested.
     */
    MARIADB;

    /**
     * The dialect of {@code conn}'s database, from its product name.
     *
     * @throws IllegalArgumentException if the database is neither PostgreSQL nor MariaDB/MySQL
     */
    public static Dialect of(Connection conn) throws SQLException {
      String product = conn.getMetaData().getDatabaseProductName();
      String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
      if (p.contains("postgres")) {
        return POSTGRESQL;
      }
      if (p.contains("mariadb") || p.contains("mysql")) {
        return MARIADB;
      }
      throw new IllegalArgumentException("JdbcFence speaks PostgreSQL and MariaDB, not '" + product + "'");
    }
  }

  /**
   * The {@code CREATE TABLE IF NOT EXISTS} statement of the fence table in {@code dialect}, for a schema migration.
   * PostgreSQL: {@code (resource text PRIMARY KEY, token bigint NOT NULL)}; MariaDB: the resource is
   * {@code VARBINARY(512)} so that names compare exactly (no case folding, no trailing-space padding).
   */
  public String createTableSql(Dialect dialect) {
    return switch (Objects.requireNonNull(dialect, "dialect")) {
      case POSTGRESQL -> "CREATE TABLE IF NOT EXISTS " + table + " (resource text PRIMARY KEY, token bigint NOT NULL)";
      case MARIADB -> "CREATE TABLE IF NOT EXISTS " + table
          + " (resource VARBINARY(512) NOT NULL PRIMARY KEY, token BIGINT NOT NULL) ENGINE=InnoDB";
    };
  }

  /**
   * Creates the fence table if it does not exist, on {@code conn} as it is (commit it yourself if {@code conn} is not
   * in auto-commit mode). Run it at start-up, not inside a unit of work: MariaDB commits the open transaction on
   * any DDL statement.
   */
  public void createTableIfMissing(Connection conn) throws SQLException {
    try (Statement s = conn.createStatement()) {
      s.execute(createTableSql(dialect(conn)));
    }
  }

  /**
   * Fences {@code resource} for {@code token} in {@code conn}'s current transaction: if {@code token} is at least the
   * token in force (or the resource has none yet) it becomes the token in force and the resource's fence row stays
   * locked until the transaction ends; otherwise nothing changes and {@link StaleTokenException} is thrown. Call it
   * first in the transaction, <em>before</em> the write it guards, then write, then commit; roll back on
   * {@link StaleTokenException} (or any failure). Checking first orders the writers at the fence row: a write made
   * first could hold locks the newer owner waits for.
   *
   * <p>The same owner may check (and write) any number of times with its token; a newer owner's larger token
   * replaces it, after which the older token is refused for good.
   *
   * @throws StaleTokenException if a larger token has written to {@code resource} (committed, or committed while this
   *     check waited for the row)
   * @throws IllegalStateException if {@code conn} is in auto-commit mode (the check would end its own transaction and
   *     guard nothing)
   * @throws IllegalArgumentException if {@code resource} is null or empty, or {@code token} is negative
   */
  public void check(Connection conn, String resource, long token) throws SQLException {
    requireResource(resource);
    if (token < 0) {
      throw new IllegalArgumentException("token must be >= 0, was " + token);
    }
    if (conn.getAutoCommit()) {
      throw new IllegalStateException("the fence check for '" + resource + "' must run in the transaction of the write it"
          + " guards, but the connection is in auto-commit mode: call conn.setAutoCommit(false) first");
    }
    long inForce = switch (dialect(conn)) {
      case POSTGRESQL -> checkPostgres(conn, resource, token);
      case MARIADB -> checkMariaDb(conn, resource, token);
    };
    if (inForce > token) {
      throw new StaleTokenException(resource, token, inForce);
    }
  }

  /**
   * Runs {@code work} in a new transaction on a connection from {@code db}, fenced: {@link #check} first, then
   * {@code work}, then commit. On any failure (a {@link StaleTokenException} included) the transaction is rolled back
   * and the failure rethrown. The connection is closed at the end.
   *
   * @return what {@code work} returned
   */
  public <T> T inTransaction(DataSource db, String resource, long token, Work<T> work) throws SQLException {
    Objects.requireNonNull(work, "work");
    try (Connection conn = db.getConnection()) {
      boolean autoCommit = conn.getAutoCommit();
      conn.setAutoCommit(false);
      try {
        check(conn, resource, token);
        T result = work.run(conn);
        conn.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        try {
          conn.rollback();
        } catch (SQLException r) {
          e.addSuppressed(r);
        }
        throw e;
      } finally {
        conn.setAutoCommit(autoCommit);
      }
    }
  }

  /** A unit of work run by {@link #inTransaction}, after the fence check, in the same transaction. */
  @FunctionalInterface
  public interface Work<T> {
    /** Writes through {@code conn}; does not commit or roll back. */
    T run(Connection conn) throws SQLException;
  }

  /** The token in force for {@code resource} (a plain read, no lock); empty if no owner has written. */
  public OptionalLong inForce(Connection conn, String resource) throws SQLException {
    requireResource(resource);
    return readToken(conn, "SELECT token FROM " + table + " WHERE resource = ?", resource);
  }

  private long checkPostgres(Connection conn, String resource, long token) throws SQLException {
    // one statement: the conflicting row is locked whether or not the WHERE lets it be updated
    String upsert = "INSERT INTO " + table + " AS f (resource, token) VALUES (?, ?) ON CONFLICT (resource)"
        + " DO UPDATE SET token = EXCLUDED.token WHERE f.token <= EXCLUDED.token";
    if (update(conn, upsert, resource, token) == 1) {
      return token;
    }
    // stale: read the token that refused us (the row is ours locked, so this is the newest committed value)
    return readToken(conn, "SELECT token FROM " + table + " WHERE resource = ?", resource).orElseThrow(() ->
        new IllegalStateException("fence row for '" + resource + "' refused token " + token + " but is missing"));
  }

  private long checkMariaDb(Connection conn, String resource, long token) throws SQLException {
    // the upsert takes the row's exclusive lock (waiting for a concurrent owner's commit); the locking read then
    // sees the newest committed token whatever the isolation level (a plain read could see an older snapshot)
    String upsert = "INSERT INTO " + table + " (resource, token) VALUES (?, ?)"
        + " ON DUPLICATE KEY UPDATE token = GREATEST(token, VALUES(token))";
    update(conn, upsert, resource, token);
    return readToken(conn, "SELECT token FROM " + table + " WHERE resource = ? FOR UPDATE", resource).orElseThrow(() ->
        new IllegalStateException("fence row for '" + resource + "' missing right after its upsert"));
  }

  private static int update(Connection conn, String sql, String resource, long token) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(sql)) {
      ps.setString(1, resource);
      ps.setLong(2, token);
      return ps.executeUpdate();
    }
  }

  private static OptionalLong readToken(Connection conn, String sql, String resource) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(sql)) {
      ps.setString(1, resource);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  private Dialect dialect(Connection conn) throws SQLException {
    return dialect != null ? dialect : Dialect.of(conn);
  }

  private static void requireResource(String resource) {
    if (resource == null || resource.isEmpty()) {
      throw new IllegalArgumentException("resource must not be empty, was " + (resource == null ? "null" : "''"));
    }
  }

  @Override
  public String toString() {
    return "JdbcFence[" + table + (dialect == null ? "" : ", " + dialect) + "]";
  }

  /** Builds a {@link JdbcFence}. */
  public static final class Builder {
    private String table = DEFAULT_TABLE;
    private Dialect dialect;

    private Builder() {}

    /**
     * The fence table, optionally schema-qualified ({@code schema.table}); unquoted identifiers only. Default
     * {@value #DEFAULT_TABLE}.
     *
     * @throws IllegalArgumentException if it is not such a name
     */
    public Builder table(String table) {
      if (table == null || !TABLE.matcher(table).matches()) {
        throw new IllegalArgumentException("table must be an unquoted SQL name such as allot_fence or app.allot_fence"
            + " (letters, digits, '_', not starting with a digit, at most 63 each), was '" + table + "'");
      }
      this.table = table;
      return this;
    }

    /** The SQL dialect; by default found from each connection's metadata ({@link Dialect#of}). */
    public Builder dialect(Dialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /** The fence. */
    public JdbcFence build() {
      return new JdbcFence(this);
    }
  }
}

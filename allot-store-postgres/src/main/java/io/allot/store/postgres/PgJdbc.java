package io.allot.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.allot.store.StoreUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's connections and the one way its roles run SQL: one statement, arguments bound by type, one round trip
 * in autocommit (one transaction), failures translated to the SPI's exceptions.
 *
 * <ul>
 *   <li>Connection-level failures (SQLSTATE class 08, 57P*, HikariCP timeouts caused by failed connection attempts)
 *       and "not now" states (53*, 57014, 40001, 40P01, 55P03, 25006: a read-only standby) are
 *       {@link StoreUnavailableException} naming the URL (never the password); a busy pool too ("no free
 *       connection"). WRONGTYPE (allot's SQLSTATE {@code AL001}) is {@link IllegalStateException}; data errors (22*,
 *       54*) are {@link IllegalArgumentException}.</li>
 *   <li>After a connection-level failure the pool is emptied, and while it has no connection calls fail at once
 *       instead of waiting {@link PostgresStoreConfig#connectionTimeout()} each. HikariCP reconnects in the
 *       background with a backoff of up to 5 s; while {@link #serverBackHint} says the server is back (the LISTEN
 *       connection reconnected), calls run on unpooled connections (at most {@code maxPoolSize} at once) until a
 *       pooled call succeeds again.</li>
 *   <li>No call is retried: the outcome of a write that failed with {@link StoreUnavailableException} is unknown.</li>
 *   <li>Every connection has {@code statement_timeout} = {@link PostgresStoreConfig#statementTimeout()}, below the
 *       client's socket timeout: a statement that takes too long is cancelled and rolled back by the server (a
 *       {@link StoreUnavailableException} here) rather than applied after the client gave up on it.</li>
 *   <li>Warnings the server sends with a result (allot's functions raise one when a pool starts waiting out its
 *       lost-state guard) are logged at WARN.</li>
 * </ul>
 *
 * <p>Thread-safe. {@code downReason} and {@code serverBackHint} are volatile (written by any caller, read by all);
 * {@code closed} is atomic; the rest is immutable or thread-safe (HikariCP, the semaphore).
 */
final class PgJdbc implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PgJdbc.class);
  private static final AtomicInteger POOLS = new AtomicInteger();

  /** Works on a connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** Reads a whole result set. */
  @FunctionalInterface
  interface Rows<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** The single boolean of {@code SELECT f(...)}. */
  static final Rows<Boolean> BOOLEAN = rs -> {
    rs.next();
    return rs.getBoolean(1);
  };

  /** The single bigint of {@code SELECT f(...)} (0 if null). */
  static final Rows<Long> LONG = rs -> {
    rs.next();
    return rs.getLong(1);
  };

  /** Ignores the result ({@code SELECT f(...)} of a void function). */
  static final Rows<Void> NOTHING = rs -> null;

  private final PostgresStoreConfig config;
  private final String where;
  private final HikariDataSource pool;
  private final org.postgresql.Driver driver = new org.postgresql.Driver();
  private final Properties directProps;
  private final Semaphore directPermits;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** The application's DataSource every connection comes from (see {@link PgBorrowed}), or null: the URL's. */
  private final DataSource borrowed;
  /** Set after a connection-level failure, cleared by the next pooled success. */
  private volatile String downReason;
  /** True when the server is probably reachable again (see the class comment); set once by the store. */
  private volatile BooleanSupplier serverBackHint = () -> false;

  /**
   * Opens the pool and its first connection.
   *
   * @throws StoreUnavailableException if the server cannot be reached
   */
  PgJdbc(PostgresStoreConfig config) {
    this(config, null);
  }

  /**
   * Opens the pool over {@code borrowed} (the application's DataSource, never closed here; its connections are
   * reset when the store gives them back, {@link PgBorrowed}), or over the URL when it is null.
   */
  PgJdbc(PostgresStoreConfig config, DataSource borrowed) {
    this.config = config;
    this.borrowed = borrowed == null ? null : PgBorrowed.resetting(borrowed);
    this.where = config.describe();
    PostgresUrl url = config.url();
    this.directProps = connectionProperties(config.applicationName());
    this.directPermits = new Semaphore(config.maxPoolSize());

    HikariConfig hc = new HikariConfig();
    hc.setPoolName("allot-pg-" + POOLS.incrementAndGet());
    if (this.borrowed != null) {
      hc.setDataSource(this.borrowed);
    } else {
      hc.setJdbcUrl(url.jdbcUrl());
      if (url.user() != null) {
        hc.setUsername(url.user());
      }
      if (url.password() != null) {
        hc.setPassword(url.password());
      }
      driverDefaults(config.applicationName()).forEach((k, v) -> hc.addDataSourceProperty((String) k, v));
    }
    hc.setMaximumPoolSize(config.maxPoolSize());
    hc.setMinimumIdle(1); // keeps HikariCP reconnecting in the background while the server is down
    hc.setConnectionTimeout(config.connectionTimeout().toMillis());
    hc.setValidationTimeout(Math.max(250, Math.min(1000, config.connectionTimeout().toMillis() - 1)));
    hc.setInitializationFailTimeout(1); // connect eagerly: fail now if the first connection fails
    hc.setAutoCommit(true);
    hc.setConnectionInitSql(statementTimeoutSql());
    try {
      this.pool = new HikariDataSource(hc);
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("cannot connect to " + url.description() + ": " + rootMessage(e), e);
    }
  }

  /** Where, for messages: the URL without password, and the schema. */
  String where() {
    return where;
  }

  /** Tells when the server is probably reachable again although the pool is still empty. */
  void serverBackHint(BooleanSupplier hint) {
    this.serverBackHint = hint;
  }

  /** A pooled connection, for setting the schema up (the caller closes it). */
  Connection pooledConnection() throws SQLException {
    return pool.getConnection();
  }

  /** Opens an unpooled connection (the LISTEN connection) with {@code applicationName}. */
  Connection unpooledConnection(String applicationName) throws SQLException {
    Connection c = borrowed != null ? borrowed.getConnection()
        : driver.connect(config.url().jdbcUrl(), connectionProperties(applicationName));
    if (c == null) {
      throw new SQLException("pgjdbc does not accept the URL " + config.url().description());
    }
    try (Statement st = c.createStatement()) {
      st.execute(statementTimeoutSql());
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private String statementTimeoutSql() {
    return "SET statement_timeout = " + config.statementTimeout().toMillis();
  }

  // ---------------------------------------------------------------- running SQL

  /** Runs {@code sql} with {@code args} bound in order, and returns what {@code rows} reads from its result. */
  <T> T query(String op, String sql, Rows<T> rows, Object... args) {
    return call(op, c -> {
      try (PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
        T result = rows.read(rs);
        logWarnings(ps);
        return result;
      }
    });
  }

  /** Runs an UPDATE (or INSERT, DELETE) with {@code args} bound in order; returns the number of rows changed. */
  int update(String op, String sql, Object... args) {
    return call(op, c -> {
      try (PreparedStatement ps = prepare(c, sql, args)) {
        int changed = ps.executeUpdate();
        logWarnings(ps);
        return changed;
      }
    });
  }

  private void logWarnings(Statement st) throws SQLException {
    for (SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning()) {
      log.warn("{}: {}", where, w.getMessage());
    }
  }

  /**
   * Binds {@code String}, {@code Long}, {@code Integer}, {@code String[]} (a {@code text[]}) and {@code Long[]} (a
   * {@code bigint[]}) arguments.
   *
   * @throws IllegalArgumentException for any other type (a bug)
   */
  private static PreparedStatement prepare(Connection c, String sql, Object[] args) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    try {
      for (int i = 0; i < args.length; i++) {
        Object a = args[i];
        if (a == null) {
          ps.setNull(i + 1, java.sql.Types.VARCHAR);
        } else if (a instanceof String s) {
          ps.setString(i + 1, s);
        } else if (a instanceof Long n) {
          ps.setLong(i + 1, n);
        } else if (a instanceof Integer n) {
          ps.setInt(i + 1, n);
        } else if (a instanceof String[] array) {
          ps.setArray(i + 1, c.createArrayOf("text", array));
        } else if (a instanceof Long[] array) {
          ps.setArray(i + 1, c.createArrayOf("bigint", array));
        } else {
          throw new IllegalArgumentException("cannot bind argument " + (i + 1) + " of type "
              + (a == null ? "null" : a.getClass().getName()));
        }
      }
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }

  /** Runs {@code work} on a connection; see the class comment for the failure policy. */
  <T> T call(String op, Work<T> work) {
    checkOpen();
    String down = downReason;
    if (down != null) {
      HikariPoolMXBean mx = pool.getHikariPoolMXBean();
      if (mx != null && mx.getTotalConnections() == 0) {
        if (serverBackHint.getAsBoolean()) {
          return direct(op, work); // the server is back, but HikariCP has not reconnected yet
        }
        throw new StoreUnavailableException(where + " unavailable for " + op + ": " + down);
      }
    }
    try (Connection c = pool.getConnection()) {
      T result = work.run(c);
      if (downReason != null) {
        downReason = null;
        log.info("{} is reachable again", where);
      }
      return result;
    } catch (SQLException e) {
      throw translate(op, e);
    }
  }

  /**
   * Runs {@code work} on a new unpooled connection (at most {@code maxPoolSize} at once). Used only while the store
   * is marked down, its pool is still empty and the server is probably back: HikariCP retries with a backoff of up
   * to 5 s, so without this a store would answer up to 5 s after the server is back. The down state is cleared by
   * the first pooled call that succeeds, not here.
   */
  private <T> T direct(String op, Work<T> work) {
    try {
      if (!directPermits.tryAcquire(config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        throw new StoreUnavailableException("no free connection to " + where + " for " + op + " within "
            + config.connectionTimeout().toMillis() + " ms (reconnecting)");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while waiting for " + where + " (" + op + ")", e);
    }
    try (Connection c = unpooledConnection(config.applicationName())) {
      return work.run(c);
    } catch (SQLException e) {
      throw translate(op, e);
    } finally {
      directPermits.release();
    }
  }

  // ---------------------------------------------------------------- failures

  /** The SPI exception for a failure of {@code op}; see the class comment. */
  RuntimeException translate(String op, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String message = rootMessage(e);
    // HikariCP's timeout carries the last connection failure as its cause when it could not open connections;
    // without a cause, the pool was merely busy (every connection in use for the whole connection timeout)
    boolean poolBusy = e instanceof SQLTransientConnectionException && e.getCause() == null;
    if (poolBusy) {
      return new StoreUnavailableException("no free connection to " + where + " for " + op + " within "
          + config.connectionTimeout().toMillis() + " ms (all " + config.maxPoolSize() + " in use): " + message, e);
    }
    if (e instanceof SQLTransientConnectionException || connectionLost(state)) {
      markDown(message);
      return new StoreUnavailableException(where + " unavailable for " + op + ": " + message, e);
    }
    if (transientState(state)) {
      return new StoreUnavailableException(where + " cannot serve " + op + " now: " + message, e);
    }
    if (Thread.currentThread().isInterrupted()) {
      return new StoreUnavailableException("interrupted while waiting for " + where + " (" + op + ")", e);
    }
    if (state.equals("AL001")) { // WRONGTYPE raised by allot's functions
      return new IllegalStateException(e.getMessage().replaceFirst("^ERROR: ", ""), e);
    }
    if (state.equals("AL002")) { // register: the id is live under another session
      ServerErrorMessage server = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
      long until;
      try {
        until = Long.parseLong(server == null ? "" : String.valueOf(server.getDetail()));
      } catch (NumberFormatException bad) {
        until = 0; // cannot happen with allot's functions; 0 = "unknown, already over": the caller retries
      }
      return new LiveMember(until, e);
    }
    if (state.startsWith("22") || state.startsWith("54")) { // data exception (e.g. NUL character), too long
      return new IllegalArgumentException(where + " refused " + op + ": " + message, e);
    }
    return new IllegalStateException(where + " refused " + op + ": " + message, e);
  }

  /**
   * A registration refused because the id is live under another session (SQLSTATE {@code AL002}); the caller, who
   * knows pool and id, turns it into a {@link io.allot.store.MemberConflictException}.
   */
  static final class LiveMember extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final long liveUntilMillis;

    LiveMember(long liveUntilMillis, SQLException cause) {
      super(cause.getMessage(), cause);
      this.liveUntilMillis = liveUntilMillis;
    }

    /** From when the id may register again (store time, epoch ms), as the function reported it. */
    long liveUntilMillis() {
      return liveUntilMillis;
    }
  }

  /** SQLSTATEs (or classes) meaning "not now" rather than "wrong request". */
  private static boolean transientState(String state) {
    return state.startsWith("08") // connection exception
        || state.startsWith("53") // insufficient resources (too many connections, out of memory, disk full)
        || state.startsWith("57P") // admin/crash shutdown, cannot connect now (starting up), database dropped
        || state.equals("57014") // query canceled (statement timeout)
        || state.equals("40001") || state.equals("40P01") // serialization failure, deadlock: safe to retry
        || state.equals("55P03") // lock not available
        || state.equals("25006"); // read-only transaction: a standby (e.g. right after a failover)
  }

  private static boolean connectionLost(String state) {
    return state.startsWith("08") || state.startsWith("57P");
  }

  /** After a connection-level failure: empty the pool so later calls fail at once while the server is away. */
  private void markDown(String reason) {
    boolean first = downReason == null;
    downReason = reason;
    if (first) {
      log.warn("{} unreachable: {}", where, reason);
      HikariPoolMXBean mx = pool.getHikariPoolMXBean();
      if (mx != null) {
        mx.softEvictConnections();
      }
    }
  }

  static String rootMessage(Throwable e) {
    String message = String.valueOf(e.getMessage());
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
      if (t.getMessage() != null && !message.contains(t.getMessage())) {
        message = message + " (" + t.getMessage() + ")";
      }
    }
    return message;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Throws {@link IllegalStateException} once closed. */
  void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("PostgresStore for " + where + " is closed");
    }
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Marks the store closed; true the first time. Calls fail from now on; {@link #close()} closes the pool. */
  boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  /** Closes the pool (and marks the store closed). */
  @Override
  public void close() {
    closed.set(true);
    pool.close();
  }

  // ---------------------------------------------------------------- connection properties

  private Properties connectionProperties(String applicationName) {
    Properties p = config.url().properties();
    driverDefaults(applicationName).forEach(p::putIfAbsent);
    return p;
  }

  private Properties driverDefaults(String applicationName) {
    Properties p = new Properties();
    p.setProperty("connectTimeout", Long.toString(ceilSeconds(config.connectTimeout())));
    p.setProperty("socketTimeout", Long.toString(ceilSeconds(config.socketTimeout())));
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("ApplicationName", applicationName);
    return p;
  }

  private static long ceilSeconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }
}

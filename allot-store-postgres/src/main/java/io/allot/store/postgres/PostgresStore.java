package io.allot.store.postgres;

import io.allot.store.Membership;
import io.allot.store.Ownership;
import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.spi.AbstractStore;
import io.allot.store.spi.OnceWarnings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Store} on PostgreSQL, through pgjdbc and a small HikariCP pool ({@code postgresql://} URIs through
 * {@link io.allot.store.Stores#open(String)}, or {@link #connect}). Tables and functions live in one schema (default
 * {@code allot}), created and migrated at connect ({@link SchemaMigrator}); the layout is described in the module
 * README.
 *
 * <p>Each role is its own class over one shared {@link PgJdbc} (connections, binding, failure translation):
 * {@link PgClock}, {@link PgLeadership}, {@link PgMembership}, {@link PgOwnership}, {@link PgTables},
 * {@link PgNotifications}, {@link PgSeedKeys}, {@link PgJobQueue} and {@link PgTaskSpecs}. Every operation is one
 * statement in autocommit mode, so one round trip and one transaction: the multi-step ones (publish, register,
 * claim, ...) are PL/pgSQL functions that take their row locks in a fixed order. Every expiry decision uses the server's {@code clock_timestamp()}: store time,
 * never the caller's clock.
 *
 * <h2>Safety</h2>
 * Claims keep ownership exclusive when the server loses state or its clock steps: tokens are never below the store
 * time in µs; each pool's claims wait {@link PostgresStoreConfig#lostStateGuard()} after a sign of lost state (the
 * server's incarnation changed: a promotion, or a restart with settings that allow losing commits); a unit is taken
 * from an owner only once its lease has been over for {@link PostgresStoreConfig#clockMargin()}. At connect the
 * store refuses a standby and reports, in {@link #safety()} and once in the log, every setting that allows losing
 * acknowledged writes ({@code fsync}, {@code synchronous_commit}, {@code full_page_writes}, asynchronous standbys).
 *
 * <h2>Failures</h2>
 * Connection failures and timeouts raise {@link StoreUnavailableException} naming the URL (never the password).
 * A call waits at most {@link PostgresStoreConfig#connectionTimeout()} for a pooled connection and
 * {@link PostgresStoreConfig#socketTimeout()} for an answer. After a connection-level failure the pool is emptied,
 * and while it has no connection (the server is unreachable) calls fail at once instead of waiting. HikariCP keeps
 * trying to reconnect in the background, with a backoff of up to 5 s; once the LISTEN connection is back (its own
 * backoff is {@link PostgresStoreConfig#reconnectDelayMax()}, 2 s by default), calls run on unpooled connections
 * until the pool has one again, so the store answers as soon as the listener has reconnected.
 * No call is retried automatically: the outcome of a write that failed that way is unknown (every write of the SPI
 * is safe to retry).
 */
public final class PostgresStore extends AbstractStore {
  private static final Logger log = LoggerFactory.getLogger(PostgresStore.class);

  private final PostgresStoreConfig config;
  private final PgJdbc db;
  private final PgChannels channels;
  private final PgNotifications notifications;
  private final PgMembership.Statements membershipSql;
  private final PgOwnership.Statements ownershipSql;
  private final PgJobQueue.Statements taskQueueSql;
  private final PgTaskSpecs.Statements taskSpecsSql;
  private final PgRouteWeights.Statements routeWeightsSql;
  private final PgEvents.Statements eventsSql;
  private final String jobQueuesSql;

  /** The store over {@code db}, whose server was checked and whose schema is ready; {@code s} is the quoted schema. */
  private PostgresStore(PostgresStoreConfig config, PgJdbc db, Safety safety, String s, PgChannels channels,
      PgSeedKeys seedKeys, PgNotifications notifications) {
    super(safety, new PgClock(db), new PgLeadership(db, s), new PgTables(db, channels, seedKeys, s), notifications,
        seedKeys);
    this.config = config;
    this.db = db;
    this.channels = channels;
    this.membershipSql = new PgMembership.Statements(s, config.lostStateGuard(), config.clockMargin());
    this.ownershipSql = new PgOwnership.Statements(s, config.lostStateGuard(), config.clockMargin());
    this.taskQueueSql = new PgJobQueue.Statements(s, config.clockMargin());
    this.taskSpecsSql = new PgTaskSpecs.Statements(s);
    this.routeWeightsSql = new PgRouteWeights.Statements(s);
    this.eventsSql = new PgEvents.Statements(s);
    this.jobQueuesSql = PgJobQueues.statement(s);
    this.notifications = notifications;
    db.serverBackHint(notifications::isListening);
    notifications.start();
    log.info("connected to {}", db.where());
  }

  /**
   * Connects to {@code postgresql://user:pass@host:port/db?...}, {@code postgres://...} or
   * {@code jdbc:postgresql://...}; the schema is the URL's {@code allot_schema}, else {@code allot}.
   */
  public static PostgresStore connect(String url) {
    return connect(PostgresStoreConfig.builder(url).build());
  }

  /** Connects using {@code schema} (created if missing). */
  public static PostgresStore connect(String url, String schema) {
    return connect(PostgresStoreConfig.builder(url).schema(schema).build());
  }

  /**
   * Connects eagerly and creates or migrates the schema.
   *
   * @throws StoreUnavailableException if the server cannot be reached (the message names the URL, without password)
   */
  public static PostgresStore connect(PostgresStoreConfig config) {
    return open(Objects.requireNonNull(config, "config"), new PgJdbc(config));
  }

  /** The store over {@code db}: checks the server, prepares the schema (closing {@code db} if either fails). */
  private static PostgresStore open(PostgresStoreConfig config, PgJdbc db) {
    PgDurability.Assessment durability = checkServer(config, db);
    prepareSchema(config, db);
    Safety safety = new Safety(config.lostStateGuard(), config.clockMargin(), durability.lossPossible(),
        durability.findings());
    String s = SchemaMigrator.quote(config.schema());
    PgChannels channels = new PgChannels(config.schema());
    return new PostgresStore(config, db, safety, s, channels, new PgSeedKeys(db, channels, s),
        new PgNotifications(db, channels, config));
  }

  public PostgresStoreConfig config() {
    return config;
  }

  /** The schema this store works in. */
  public String schema() {
    return config.schema();
  }

  /** Whether the LISTEN connection is up (it reconnects by itself). */
  public boolean isListening() {
    return notifications.isListening();
  }

  @Override
  public String describe() {
    return db.where();
  }

  @Override
  public Membership membership(String pool) {
    return new PgMembership(db, channels, membershipSql, Store.checkPool(pool));
  }

  @Override
  public Ownership ownership(String pool) {
    return new PgOwnership(db, channels, ownershipSql, Store.checkPool(pool));
  }

  /** The long-running task specs of {@code pool} (table {@code task_specs} of this store's schema). */
  @Override
  public io.allot.store.tasks.TaskSpecs taskSpecs(String pool) {
    db.checkOpen();
    return new PgTaskSpecs(db, channels, taskSpecsSql, Store.checkPool(pool));
  }

  /** The event history ({@link PgEvents}: tables {@code events}, {@code event_ids}). */
  @Override
  public io.allot.store.events.Events events() {
    db.checkOpen();
    return new PgEvents(db, eventsSql);
  }

  /** The live routing weights of {@code pool} ({@link PgRouteWeights}: tables {@code route_weights}, ...). */
  @Override
  public io.allot.store.RouteWeights routeWeights(String pool) {
    db.checkOpen();
    return new PgRouteWeights(db, channels, routeWeightsSql, Store.checkPool(pool));
  }

  /**
   * The job queue {@code name} (table {@code jobs} of this store's schema).
   *
   * @throws IllegalArgumentException if the name is not a valid queue name ({@link io.allot.store.jobs.JobLimits})
   */
  @Override
  public io.allot.store.jobs.JobQueue jobQueue(String name) {
    db.checkOpen();
    return new PgJobQueue(db, taskQueueSql, name);
  }

  /** The job queues as a whole ({@link PgJobQueues}: tables {@code jobs} and {@code job_queues}). */
  @Override
  public io.allot.store.jobs.JobQueues jobQueues() {
    db.checkOpen();
    return new PgJobQueues(db, jobQueuesSql);
  }

  @Override
  public void close() {
    if (!db.markClosed()) {
      return;
    }
    notifications.close();
    db.close();
    log.info("closed connections to {}", db.where());
  }

  /**
   * The durability check (closing the pool if it fails): refuses a standby, logs each finding once at WARN.
   *
   * @throws IllegalStateException if the server is in recovery
   */
  private static PgDurability.Assessment checkServer(PostgresStoreConfig config, PgJdbc db) {
    try (Connection c = db.pooledConnection()) {
      PgDurability.Assessment a = PgDurability.assess(config.url().description(), PgDurability.read(c));
      a.findings().forEach(f -> OnceWarnings.warn(log, db.where(), f, db.where() + ": " + f));
      return a;
    } catch (SQLException e) {
      db.close();
      throw db.translate("check the server's settings", e);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /** Creates or migrates the schema (closing the pool if that fails). */
  private static void prepareSchema(PostgresStoreConfig config, PgJdbc db) {
    String schema = config.schema();
    String url = config.url().description();
    try (Connection c = db.pooledConnection()) {
      SchemaMigrator.migrate(c, schema); // logs one INFO line when it changed something
      checkEncoding(db, c);
    } catch (SQLException e) {
      db.close();
      RuntimeException t = db.translate("create schema " + schema, e);
      if (t instanceof StoreUnavailableException) {
        throw t;
      }
      throw new IllegalStateException("cannot prepare schema " + schema + " on " + url + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  private static void checkEncoding(PgJdbc db, Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW server_encoding")) {
      if (rs.next() && !"UTF8".equalsIgnoreCase(rs.getString(1))) {
        log.warn("{} uses encoding {}: keys and values outside it will be refused (use a UTF8 database)", db.where(),
            rs.getString(1));
      }
    }
  }

  /**
   * Connects through the application's {@code dataSource} instead of a URL: the store's small pool (at most
   * {@link PostgresStoreConfig#maxPoolSize()} connections) and its LISTEN connection are borrowed from it, and given
   * back reset ({@code statement_timeout}, {@code LISTEN}s); {@link #close()} gives them back and leaves the
   * DataSource open (its owner closes it). Schema creation, migration and the durability check are those of
   * {@link #connect(PostgresStoreConfig)}. The DataSource's own settings (credentials, SSL, timeouts) apply; the
   * store's pgjdbc settings ({@code socketTimeout}, {@code connectTimeout}, {@code ApplicationName}) do not.
   *
   * @param settings the store's settings (schema, lost-state guard, clock margin, pool size, ...) on a builder whose
   *     URL is the DataSource's (read from a connection's metadata, it names the store in messages)
   * @throws IllegalArgumentException if the DataSource is not PostgreSQL's
   * @throws StoreUnavailableException if the DataSource gives no connection
   */
  public static PostgresStore connect(javax.sql.DataSource dataSource,
      java.util.function.UnaryOperator<PostgresStoreConfig.Builder> settings) {
    Objects.requireNonNull(dataSource, "dataSource");
    PostgresStoreConfig config = settings.apply(PostgresStoreConfig.builder(PgBorrowed.urlOf(dataSource))).build();
    return open(config, new PgJdbc(config, dataSource));
  }

  /** Connects through {@code dataSource} (see the method above) using {@code schema} (created if missing). */
  public static PostgresStore connect(javax.sql.DataSource dataSource, String schema) {
    Objects.requireNonNull(schema, "schema");
    return connect(dataSource, b -> b.schema(schema));
  }
}

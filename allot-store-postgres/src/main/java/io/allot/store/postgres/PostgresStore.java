package io.allot.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.MemberRecord;
import io.allot.store.Ownership;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Store} on PostgreSQL, through pgjdbc and a small HikariCP pool. Tables and functions live in one schema
 * (default {@code allot}), created and migrated at connect ({@link SchemaMigrator}); the layout is described in
 * {@code schema-v1.sql} and the module README.
 *
 * <p>Every operation is one statement in autocommit mode, so one round trip and one transaction: the multi-step
 * ones (publish, register, claim, ...) are PL/pgSQL functions that take their row locks in a fixed order. Every
 * expiry decision uses the server's {@code clock_timestamp()}: store time, never the caller's clock.
 *
 * <h2>Pub/sub</h2>
 * LISTEN/NOTIFY on one dedicated connection (not from the pool) owned by one thread ({@link NotificationListener}).
 * A logical channel (any string) maps to the PostgreSQL channel {@code allot_<32 hex>} = the first 128 bits of
 * SHA-256(schema + '\n' + channel), so channel names of any length or alphabet work, stores in different schemas
 * never hear each other, and a listener only receives what it subscribed to. The payload is
 * {@code <length of channel>:<channel><message>}: the logical channel travels along and is checked on receipt. A
 * payload must stay under PostgreSQL's 8000 bytes. Messages are delivered in order on one store thread.
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
public final class PostgresStore implements Store {
  private static final Logger log = LoggerFactory.getLogger(PostgresStore.class);
  private static final AtomicInteger POOLS = new AtomicInteger();
  /** pg_notify refuses payloads of 8000 bytes or more. */
  static final int MAX_PAYLOAD_BYTES = 7999;

  private final PostgresStoreConfig config;
  private final String schema;
  private final String where;
  private final HikariDataSource pool;
  private final Sql sql;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Set after a connection-level failure, cleared by the next success; see the class comment. */
  private volatile String downReason;
  /** Unpooled connections for calls while the pool is still empty after an outage (see {@link #direct}). */
  private final org.postgresql.Driver driver = new org.postgresql.Driver();
  private final Properties directProps;
  private final Semaphore directPermits;

  private final Object subLock = new Object();
  /** PostgreSQL channel -> its subscriptions (only non-empty lists). */
  private final Map<String, CopyOnWriteArrayList<Sub>> subscriptions = new ConcurrentHashMap<>();
  private final ExecutorService dispatcher;
  private final NotificationListener listener;

  private PostgresStore(PostgresStoreConfig config) {
    this.config = config;
    this.schema = config.schema();
    this.where = config.describe();
    this.sql = new Sql(SchemaMigrator.quote(schema));
    PostgresUrl url = config.url();
    this.directProps = url.properties();
    driverDefaults(config, config.applicationName()).forEach(directProps::putIfAbsent);
    this.directPermits = new Semaphore(config.maxPoolSize());

    HikariConfig hc = new HikariConfig();
    hc.setPoolName("allot-pg-" + POOLS.incrementAndGet());
    hc.setJdbcUrl(url.jdbcUrl());
    if (url.user() != null) {
      hc.setUsername(url.user());
    }
    if (url.password() != null) {
      hc.setPassword(url.password());
    }
    driverDefaults(config, config.applicationName()).forEach((k, v) -> hc.addDataSourceProperty((String) k, v));
    hc.setMaximumPoolSize(config.maxPoolSize());
    hc.setMinimumIdle(1); // keeps HikariCP reconnecting in the background while the server is down
    hc.setConnectionTimeout(config.connectionTimeout().toMillis());
    hc.setValidationTimeout(Math.max(250, Math.min(1000, config.connectionTimeout().toMillis() - 1)));
    hc.setInitializationFailTimeout(1); // connect eagerly: fail now if the first connection fails
    hc.setAutoCommit(true);
    HikariDataSource ds;
    try {
      ds = new HikariDataSource(hc);
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("cannot connect to " + url.description() + ": " + rootMessage(e), e);
    }
    this.pool = ds;
    try {
      try (Connection c = ds.getConnection()) {
        int before = SchemaMigrator.migrate(c, schema);
        if (before != SchemaMigrator.LATEST) {
          log.info("PostgreSQL schema {} on {} migrated from version {} to {}", schema, url.description(), before,
              SchemaMigrator.LATEST);
        }
        checkEncoding(c);
      }
    } catch (SQLException e) {
      ds.close();
      RuntimeException t = translate("create schema " + schema, e);
      if (t instanceof StoreUnavailableException) {
        throw t;
      }
      throw new IllegalStateException("cannot prepare schema " + schema + " on " + url.description() + ": "
          + e.getMessage(), e);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }

    this.dispatcher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "allot-postgres-notify");
      t.setDaemon(true);
      return t;
    });
    Properties listenProps = url.properties();
    driverDefaults(config, config.applicationName() + "-listen").forEach(listenProps::putIfAbsent);
    this.listener = new NotificationListener(
        () -> {
          Connection c = driver.connect(url.jdbcUrl(), listenProps);
          if (c == null) {
            throw new SQLException("pgjdbc does not accept the URL " + url.description());
          }
          return c;
        },
        this::listenedChannels, this::received, this::wakeListener, where, config);
    this.listener.start();
    log.info("connected to {}", where);
  }

  /** Connects to {@code postgresql://user:pass@host:port/db?...} or {@code jdbc:postgresql://...}, schema per URL. */
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
    return new PostgresStore(Objects.requireNonNull(config, "config"));
  }

  public PostgresStoreConfig config() {
    return config;
  }

  /** The schema this store works in. */
  public String schema() {
    return schema;
  }

  /** Whether the LISTEN connection is up (it reconnects by itself). */
  public boolean isListening() {
    return listener.isConnected();
  }

  private static Properties driverDefaults(PostgresStoreConfig config, String applicationName) {
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

  private void checkEncoding(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW server_encoding")) {
      if (rs.next() && !"UTF8".equalsIgnoreCase(rs.getString(1))) {
        log.warn("{} uses encoding {}: keys and values outside it will be refused (use a UTF8 database)", where,
            rs.getString(1));
      }
    }
  }

  // ---------------------------------------------------------------- lists and hashes

  @Override
  public List<String> list(String key) {
    Objects.requireNonNull(key, "key");
    return call("read list " + key, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.list)) {
        ps.setString(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          List<String> out = new ArrayList<>();
          while (rs.next()) {
            checkKind(key, rs.getString(1), "list");
            String v = rs.getString(2);
            if (v != null) {
              out.add(v);
            }
          }
          return List.copyOf(out);
        }
      }
    });
  }

  @Override
  public boolean addToList(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return call("add to list " + key, c -> bool(c, sql.addToList, key, value));
  }

  @Override
  public boolean removeFromList(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return call("remove from list " + key, c -> bool(c, sql.removeFromList, key, value));
  }

  @Override
  public Map<String, String> hash(String key) {
    Objects.requireNonNull(key, "key");
    return call("read hash " + key, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.hash)) {
        ps.setString(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          Map<String, String> out = new LinkedHashMap<>();
          while (rs.next()) {
            checkKind(key, rs.getString(1), "hash");
            String f = rs.getString(2);
            if (f != null) {
              out.put(f, rs.getString(3));
            }
          }
          return Map.copyOf(out);
        }
      }
    });
  }

  @Override
  public String hashField(String key, String field) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(field, "field");
    return call("read hash field of " + key, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.hashField)) {
        ps.setString(1, field);
        ps.setString(2, key);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return null;
          }
          checkKind(key, rs.getString(1), "hash");
          return rs.getString(2);
        }
      }
    });
  }

  @Override
  public void replaceList(String key, List<String> values) {
    Objects.requireNonNull(key, "key");
    String[] array = values.toArray(new String[0]);
    for (String v : array) {
      Objects.requireNonNull(v, "list values must not be null");
    }
    call("replace list " + key, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.replaceList)) {
        ps.setString(1, key);
        ps.setArray(2, c.createArrayOf("text", array));
        ps.execute();
      }
      return null;
    });
  }

  @Override
  public long timeMillis() {
    return call("read the clock", c -> {
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql.timeMillis)) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  // ---------------------------------------------------------------- leases

  @Override
  public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    long ttlMs = ttlMillis(ttl);
    return call("acquire lease " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.tryAcquire)) {
        ps.setString(1, name);
        ps.setString(2, holder);
        ps.setLong(3, ttlMs);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(new Lease(name, holder, rs.getLong(1))) : Optional.<Lease>empty();
        }
      }
    });
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    Objects.requireNonNull(lease, "lease");
    long ttlMs = ttlMillis(ttl);
    return call("renew lease " + lease.name(), c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.renew)) {
        ps.setLong(1, ttlMs);
        ps.setString(2, lease.name());
        ps.setString(3, lease.holder());
        ps.setLong(4, lease.token());
        return ps.executeUpdate() == 1;
      }
    });
  }

  @Override
  public void release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    call("release lease " + lease.name(), c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.release)) {
        ps.setString(1, lease.name());
        ps.setString(2, lease.holder());
        ps.setLong(3, lease.token());
        return ps.executeUpdate();
      }
    });
  }

  @Override
  public Optional<Lease> currentLeader(String name) {
    Objects.requireNonNull(name, "name");
    return call("read lease " + name, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.currentLeader)) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(new Lease(name, rs.getString(1), rs.getLong(2))) : Optional.<Lease>empty();
        }
      }
    });
  }

  // ---------------------------------------------------------------- fenced publication

  @Override
  public long publish(Lease lease, String hashKey, String group, Map<String, String> fields) {
    Objects.requireNonNull(lease, "lease");
    String expectedName = Store.tableLeaseName(hashKey, group);
    if (!lease.name().equals(expectedName)) {
      throw new IllegalArgumentException("publishing group '" + group + "' into '" + hashKey
          + "' needs the lease named '" + expectedName + "', not '" + lease.name() + "'");
    }
    String[] names = new String[fields.size()];
    String[] values = new String[fields.size()];
    int i = 0;
    for (Map.Entry<String, String> e : fields.entrySet()) {
      names[i] = Objects.requireNonNull(e.getKey(), "field");
      values[i++] = Objects.requireNonNull(e.getValue(), "value");
    }
    String channel = Store.notifyChannel(hashKey);
    String prefix = payloadPrefix(channel);
    checkPayload(channel, prefix + Long.MAX_VALUE);
    Object[] result = call("publish into " + hashKey, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.publish)) {
        ps.setString(1, lease.name());
        ps.setString(2, lease.holder());
        ps.setLong(3, lease.token());
        ps.setString(4, hashKey);
        ps.setString(5, group);
        ps.setArray(6, c.createArrayOf("text", names));
        ps.setArray(7, c.createArrayOf("text", values));
        ps.setString(8, pgChannel(channel));
        ps.setString(9, prefix);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          long epoch = rs.getLong(1);
          boolean fenced = rs.wasNull();
          return new Object[] {fenced ? null : epoch, rs.getString(2), rs.getLong(3)};
        }
      }
    });
    if (result[0] != null) {
      return (Long) result[0];
    }
    Optional<Lease> current = result[1] == null
        ? Optional.empty()
        : Optional.of(new Lease(lease.name(), (String) result[1], (Long) result[2]));
    throw new FencedException(lease, current);
  }

  @Override
  public long epoch(String hashKey) {
    Objects.requireNonNull(hashKey, "hashKey");
    return call("read epoch of " + hashKey, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.epoch)) {
        ps.setString(1, hashKey);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getLong(1) : 0L;
        }
      }
    });
  }

  // ---------------------------------------------------------------- membership and ownership

  @Override
  public long register(String pool, String id, int affinity, int capacity, Duration ttl) {
    checkMemberArgs(pool, id);
    checkWeights(id, affinity, capacity);
    long ttlMs = ttlMillis(ttl);
    String channel = Store.membersChannel(pool);
    String payload = payload(channel, id);
    return call("register " + id + " in " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.register)) {
        ps.setString(1, pool);
        ps.setString(2, id);
        ps.setInt(3, affinity);
        ps.setInt(4, capacity);
        ps.setLong(5, ttlMs);
        ps.setString(6, pgChannel(channel));
        ps.setString(7, payload);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    });
  }

  @Override
  public boolean renewMember(String pool, String id, long session, Duration ttl) {
    checkMemberArgs(pool, id);
    long ttlMs = ttlMillis(ttl);
    return call("renew member " + id + " in " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.renewMember)) {
        ps.setLong(1, ttlMs);
        ps.setString(2, pool);
        ps.setString(3, id);
        ps.setLong(4, session);
        return ps.executeUpdate() == 1;
      }
    });
  }

  @Override
  public boolean updateMember(String pool, String id, long session, int affinity, int capacity) {
    checkMemberArgs(pool, id);
    checkWeights(id, affinity, capacity);
    String channel = Store.membersChannel(pool);
    String payload = payload(channel, id);
    return call("update member " + id + " in " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.updateMember)) {
        ps.setString(1, pool);
        ps.setString(2, id);
        ps.setLong(3, session);
        ps.setInt(4, affinity);
        ps.setInt(5, capacity);
        ps.setString(6, pgChannel(channel));
        ps.setString(7, payload);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getBoolean(1);
        }
      }
    });
  }

  @Override
  public void deregister(String pool, String id, long session) {
    checkMemberArgs(pool, id);
    String channel = Store.membersChannel(pool);
    String payload = payload(channel, id);
    call("deregister " + id + " from " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.deregister)) {
        ps.setString(1, pool);
        ps.setString(2, id);
        ps.setLong(3, session);
        ps.setString(4, pgChannel(channel));
        ps.setString(5, payload);
        ps.execute();
      }
      return null;
    });
  }

  @Override
  public Map<String, MemberRecord> members(String pool) {
    Objects.requireNonNull(pool, "pool");
    return call("read members of " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.members)) {
        ps.setString(1, pool);
        try (ResultSet rs = ps.executeQuery()) {
          Map<String, MemberRecord> out = new LinkedHashMap<>();
          while (rs.next()) {
            String id = rs.getString(1);
            out.put(id, new MemberRecord(id, rs.getInt(2), rs.getInt(3), rs.getLong(4), rs.getLong(5)));
          }
          return out;
        }
      }
    });
  }

  @Override
  public OptionalLong claim(String pool, String unit, String member, long session) {
    checkMemberArgs(pool, member);
    Objects.requireNonNull(unit, "unit");
    return call("claim " + unit + " in " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.claim)) {
        ps.setString(1, pool);
        ps.setString(2, unit);
        ps.setString(3, member);
        ps.setLong(4, session);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          long token = rs.getLong(1);
          return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(token);
        }
      }
    });
  }

  @Override
  public Map<String, Long> claimAll(String pool, List<String> units, String member, long session) {
    checkMemberArgs(pool, member);
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    if (units.isEmpty()) {
      return out;
    }
    for (String u : units) {
      Objects.requireNonNull(u, "unit");
    }
    return call("claim " + units.size() + " units in " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.claimAll)) {
        ps.setString(1, pool);
        ps.setArray(2, c.createArrayOf("text", units.toArray()));
        ps.setString(3, member);
        ps.setLong(4, session);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          Object[] tokens = (Object[]) rs.getArray(1).getArray();
          for (int i = 0; i < units.size(); i++) {
            if (tokens[i] != null) {
              out.put(units.get(i), ((Number) tokens[i]).longValue());
            }
          }
          return out;
        }
      }
    });
  }

  @Override
  public boolean releaseUnit(String pool, String unit, String member, long token) {
    checkMemberArgs(pool, member);
    Objects.requireNonNull(unit, "unit");
    String channel = Store.ownersChannel(pool);
    String payload = payload(channel, unit);
    return call("release " + unit + " in " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.releaseUnit)) {
        ps.setString(1, pool);
        ps.setString(2, unit);
        ps.setString(3, member);
        ps.setLong(4, token);
        ps.setString(5, pgChannel(channel));
        ps.setString(6, payload);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getBoolean(1);
        }
      }
    });
  }

  @Override
  public Map<String, Ownership> owners(String pool) {
    Objects.requireNonNull(pool, "pool");
    return call("read owners of " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.owners)) {
        ps.setString(1, pool);
        try (ResultSet rs = ps.executeQuery()) {
          Map<String, Ownership> out = new LinkedHashMap<>();
          while (rs.next()) {
            String unit = rs.getString(1);
            out.put(unit, new Ownership(unit, rs.getString(2), rs.getLong(3), rs.getLong(4)));
          }
          return out;
        }
      }
    });
  }

  @Override
  public boolean validToken(String pool, String unit, long token) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(unit, "unit");
    return call("check token of " + unit + " in " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.validToken)) {
        ps.setString(1, pool);
        ps.setString(2, unit);
        ps.setLong(3, token);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getBoolean(1);
        }
      }
    });
  }

  private static void checkMemberArgs(String pool, String id) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(id, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("member id is empty");
    }
  }

  private static void checkWeights(String id, int affinity, int capacity) {
    if (affinity < 0 || capacity < 0) {
      throw new IllegalArgumentException("affinity and capacity must be >= 0 for member '" + id + "'");
    }
  }

  // ---------------------------------------------------------------- notification

  private final class Sub implements Subscription {
    private final String channel;
    private final String pgChannel;
    private final Consumer<String> listener;
    private volatile boolean active = true;

    Sub(String channel, Consumer<String> listener) {
      this.channel = channel;
      this.pgChannel = pgChannel(channel);
      this.listener = listener;
    }

    @Override
    public void close() {
      if (active) {
        active = false;
        unsubscribe(this);
      }
    }
  }

  @Override
  public Subscription subscribe(String channel, Consumer<String> listener) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(listener, "listener");
    checkOpen();
    Sub sub = new Sub(channel, listener);
    synchronized (subLock) {
      subscriptions.computeIfAbsent(sub.pgChannel, c -> new CopyOnWriteArrayList<>()).add(sub);
    }
    try {
      this.listener.awaitListening(sub.pgChannel, config.subscribeTimeout().toMillis());
    } catch (RuntimeException e) {
      sub.close();
      throw e;
    }
    return sub;
  }

  private void unsubscribe(Sub sub) {
    synchronized (subLock) {
      CopyOnWriteArrayList<Sub> subs = subscriptions.get(sub.pgChannel);
      if (subs != null && subs.remove(sub) && subs.isEmpty()) {
        subscriptions.remove(sub.pgChannel);
      }
    }
    // the listener UNLISTENs within one poll interval; stray messages meanwhile find no subscription
  }

  /** The PostgreSQL channels somebody subscribed to (read by the listener thread). */
  private Set<String> listenedChannels() {
    synchronized (subLock) {
      return new HashSet<>(subscriptions.keySet());
    }
  }

  /** Called on the listener thread: decode, then hand over to the single delivery thread at once. */
  private void received(String pgChannel, String payload) {
    List<Sub> subs = subscriptions.get(pgChannel);
    if (subs == null) {
      return;
    }
    String[] decoded = decodePayload(payload);
    if (decoded == null) {
      log.debug("ignoring a notification on {} that allot did not send: '{}'", pgChannel, payload);
      return;
    }
    String channel = decoded[0];
    String message = decoded[1];
    for (Sub sub : subs) {
      if (!sub.channel.equals(channel)) {
        continue;
      }
      try {
        dispatcher.execute(() -> {
          if (!sub.active) {
            return;
          }
          try {
            sub.listener.accept(message);
          } catch (RuntimeException e) {
            log.warn("listener on channel '{}' failed on message '{}'", channel, message, e);
          }
        });
      } catch (RejectedExecutionException e) {
        return; // closing
      }
    }
  }

  private void wakeListener() {
    if (closed.get()) {
      return;
    }
    call("wake the listener", c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.notify)) {
        ps.setString(1, listener.wakeChannel());
        ps.setString(2, "");
        ps.execute();
      }
      return null;
    });
  }

  @Override
  public void notify(String channel, String message) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(message, "message");
    String payload = payload(channel, message);
    call("notify " + channel, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.notify)) {
        ps.setString(1, pgChannel(channel));
        ps.setString(2, payload);
        ps.execute();
      }
      return null;
    });
  }

  /** The PostgreSQL channel carrying logical {@code channel} in this schema. */
  String pgChannel(String channel) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256")
          .digest((schema + "\n" + channel).getBytes(StandardCharsets.UTF_8));
      return "allot_" + HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String payloadPrefix(String channel) {
    return channel.length() + ":" + channel;
  }

  private static String payload(String channel, String message) {
    String p = payloadPrefix(channel) + message;
    checkPayload(channel, p);
    return p;
  }

  private static void checkPayload(String channel, String payload) {
    if (payload.getBytes(StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES) {
      throw new IllegalArgumentException("notification on channel '" + abbreviate(channel)
          + "' too long for PostgreSQL NOTIFY: channel + message must stay under about 8000 bytes");
    }
  }

  /** {@code [channel, message]}, or null if {@code payload} is not {@code <length>:<channel><message>}. */
  static String[] decodePayload(String payload) {
    int colon = payload.indexOf(':');
    if (colon <= 0 || colon > 10) {
      return null;
    }
    try {
      int n = Integer.parseInt(payload.substring(0, colon));
      if (n < 0 || colon + 1 + n > payload.length()) {
        return null;
      }
      return new String[] {payload.substring(colon + 1, colon + 1 + n), payload.substring(colon + 1 + n)};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- lifecycle

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    synchronized (subLock) {
      subscriptions.values().forEach(subs -> subs.forEach(s -> s.active = false));
      subscriptions.clear();
    }
    listener.close();
    dispatcher.shutdownNow();
    try {
      dispatcher.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pool.close();
    log.info("closed connections to {}", where);
  }

  @Override
  public String toString() {
    return "PostgresStore[" + where + "]";
  }

  // ---------------------------------------------------------------- internals

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T call(String op, Work<T> work) {
    checkOpen();
    String down = downReason;
    if (down != null) {
      HikariPoolMXBean mx = pool.getHikariPoolMXBean();
      if (mx != null && mx.getTotalConnections() == 0) {
        if (listener.isConnected()) {
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
   * is marked down, its pool is still empty and the LISTEN connection has already been re-established: HikariCP
   * retries with a backoff of up to 5 s, so without this a store would answer up to 5 s after the server is back.
   * The down state is cleared by the first pooled call that succeeds, not here.
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
    try (Connection c = driver.connect(config.url().jdbcUrl(), directProps)) {
      if (c == null) {
        throw new IllegalStateException("pgjdbc does not accept the URL " + config.url().description());
      }
      return work.run(c);
    } catch (SQLException e) {
      throw translate(op, e);
    } finally {
      directPermits.release();
    }
  }

  private boolean bool(Connection c, String statement, String a, String b) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      ps.setString(1, a);
      ps.setString(2, b);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static void checkKind(String key, String kind, String wanted) {
    if (!wanted.equals(kind)) {
      throw new IllegalStateException("WRONGTYPE: key '" + key + "' holds a " + kind + ", not a " + wanted);
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("PostgresStore for " + where + " is closed");
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

  private RuntimeException translate(String op, SQLException e) {
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
    if (state.startsWith("22") || state.startsWith("54")) { // data exception (e.g. NUL character), too long
      return new IllegalArgumentException(where + " refused " + op + ": " + message, e);
    }
    return new IllegalStateException(where + " refused " + op + ": " + message, e);
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

  private static String rootMessage(Throwable e) {
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

  private static long ttlMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms but was " + ttl);
    }
    return ttl.toMillis();
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  /** The SQL of every operation, for one schema. */
  private static final class Sql {
    final String list;
    final String hash;
    final String hashField;
    final String addToList;
    final String removeFromList;
    final String replaceList;
    final String timeMillis = "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
    final String tryAcquire;
    final String renew;
    final String release;
    final String currentLeader;
    final String publish;
    final String epoch;
    final String register;
    final String renewMember;
    final String updateMember;
    final String deregister;
    final String members;
    final String claim;
    final String claimAll;
    final String releaseUnit;
    final String owners;
    final String validToken;
    final String notify = "SELECT pg_notify(?, ?)";

    Sql(String s) {
      list = "SELECT k.kind, i.value FROM " + s + ".keys k LEFT JOIN " + s + ".list_items i ON i.key = k.key "
          + "WHERE k.key = ? ORDER BY i.pos";
      hash = "SELECT k.kind, h.field, h.value FROM " + s + ".keys k LEFT JOIN " + s + ".hash_fields h "
          + "ON h.key = k.key WHERE k.key = ?";
      hashField = "SELECT k.kind, h.value FROM " + s + ".keys k LEFT JOIN " + s + ".hash_fields h "
          + "ON h.key = k.key AND h.field = ? WHERE k.key = ?";
      addToList = "SELECT " + s + ".add_to_list(?, ?)";
      removeFromList = "SELECT " + s + ".remove_from_list(?, ?)";
      replaceList = "SELECT " + s + ".replace_list(?, ?)";
      tryAcquire = "INSERT INTO " + s + ".leases AS l (name, last_token, holder, expires_at) "
          + "VALUES (?, " + s + ".clock_micros() + 1, ?, clock_timestamp() + ? * interval '1 millisecond') "
          + "ON CONFLICT (name) DO UPDATE SET last_token = l.last_token + 1, holder = excluded.holder, "
          + "expires_at = excluded.expires_at "
          + "WHERE l.holder IS NULL OR l.expires_at <= clock_timestamp() "
          + "RETURNING l.last_token";
      renew = "UPDATE " + s + ".leases SET expires_at = clock_timestamp() + ? * interval '1 millisecond' "
          + "WHERE name = ? AND holder = ? AND last_token = ? AND expires_at > clock_timestamp()";
      release = "UPDATE " + s + ".leases SET holder = NULL, expires_at = NULL "
          + "WHERE name = ? AND holder = ? AND last_token = ?";
      currentLeader = "SELECT holder, last_token FROM " + s + ".leases "
          + "WHERE name = ? AND holder IS NOT NULL AND expires_at > clock_timestamp()";
      publish = "SELECT o_epoch, o_holder, o_token FROM " + s + ".publish(?, ?, ?, ?, ?, ?, ?, ?, ?)";
      epoch = "SELECT epoch FROM " + s + ".epochs WHERE hash_key = ?";
      register = "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?)";
      renewMember = "UPDATE " + s + ".members SET lease_until = clock_timestamp() + ? * interval '1 millisecond' "
          + "WHERE pool = ? AND id = ? AND session = ? AND lease_until > clock_timestamp()";
      updateMember = "SELECT " + s + ".update_member(?, ?, ?, ?, ?, ?, ?)";
      deregister = "SELECT " + s + ".deregister(?, ?, ?, ?, ?)";
      // lease_until rounded up to the millisecond, timeMillis rounded down: a caller that saw a lease expired
      // (leaseUntilMillis <= timeMillis) never sees the store honour it a moment later
      members = "SELECT id, affinity, capacity, session, ceil(extract(epoch FROM lease_until) * 1000)::bigint "
          + "FROM " + s + ".members WHERE pool = ?";
      claim = "SELECT " + s + ".claim(?, ?, ?, ?)";
      claimAll = "SELECT " + s + ".claim_all(?, ?, ?, ?)";
      releaseUnit = "SELECT " + s + ".release_unit(?, ?, ?, ?, ?, ?)";
      owners = "SELECT unit, member, session, token FROM " + s + ".ownership WHERE pool = ?";
      validToken = "SELECT EXISTS (SELECT 1 FROM " + s + ".ownership o JOIN " + s + ".members m "
          + "ON m.pool = o.pool AND m.id = o.member AND m.session = o.session "
          + "WHERE o.pool = ? AND o.unit = ? AND o.token = ? AND m.lease_until > clock_timestamp())";
    }
  }
}

package io.allot.store.postgres;

import io.allot.store.Durations;
import io.allot.store.Safety;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How {@link PostgresStore} connects. Build with {@link #builder(String)}; every setting has a default suited to a
 * coordination store (small pool, short timeouts). Durations are bounded ({@link Durations#check}): the lost-state
 * guard 0 to 30 days, the others at most 1 day.
 */
public final class PostgresStoreConfig {
  /** The schema used when neither {@link Builder#schema} nor the URL parameter {@code allot_schema} says otherwise. */
  public static final String DEFAULT_SCHEMA = "allot";

  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private final PostgresUrl url;
  private final String schema;
  private final int maxPoolSize;
  private final Duration connectionTimeout;
  private final Duration connectTimeout;
  private final Duration socketTimeout;
  private final Duration subscribeTimeout;
  private final Duration listenerPoll;
  private final Duration listenerPing;
  private final Duration reconnectDelayMin;
  private final Duration reconnectDelayMax;
  private final String applicationName;
  private final Duration lostStateGuard;
  private final Duration clockMargin;

  private PostgresStoreConfig(Builder b) {
    this.url = b.url;
    String s = b.schema != null ? b.schema : url.schema() != null ? url.schema() : DEFAULT_SCHEMA;
    if (!SCHEMA.matcher(s).matches()) {
      throw new IllegalArgumentException("schema name must match " + SCHEMA.pattern() + " (lower case, at most 63 "
          + "characters) but was '" + s + "'");
    }
    this.schema = s;
    if (b.maxPoolSize < 1) {
      throw new IllegalArgumentException("maxPoolSize must be at least 1 but was " + b.maxPoolSize);
    }
    this.maxPoolSize = b.maxPoolSize;
    this.connectionTimeout = timeout("connectionTimeout", b.connectionTimeout, Duration.ofMillis(250));
    this.connectTimeout = timeout("connectTimeout", b.connectTimeout, Duration.ofSeconds(1));
    this.socketTimeout = timeout("socketTimeout", b.socketTimeout, Duration.ofSeconds(1));
    this.subscribeTimeout = timeout("subscribeTimeout", b.subscribeTimeout, Duration.ofMillis(100));
    this.listenerPoll = timeout("listenerPoll", b.listenerPoll, Duration.ofMillis(10));
    this.listenerPing = timeout("listenerPing", b.listenerPing, Duration.ofMillis(100));
    this.reconnectDelayMin = timeout("reconnectDelayMin", b.reconnectDelayMin, Duration.ofMillis(1));
    this.reconnectDelayMax = timeout("reconnectDelayMax", b.reconnectDelayMax, reconnectDelayMin);
    this.applicationName = Objects.requireNonNull(b.applicationName, "applicationName");
    this.lostStateGuard = Durations.check("lostStateGuard", firstNonNull(b.lostStateGuard, url.guard(),
        Safety.DEFAULT_GUARD), Duration.ZERO, Durations.MAX_HOLD);
    this.clockMargin = timeout("clockMargin", firstNonNull(b.clockMargin, url.clockMargin(),
        Safety.DEFAULT_CLOCK_MARGIN), Duration.ZERO);
  }

  private static Duration firstNonNull(Duration set, Duration fromUrl, Duration otherwise) {
    return set != null ? set : fromUrl != null ? fromUrl : otherwise;
  }

  /** {@code d}, checked: not null, {@code min} to {@link Durations#MAX_TIMEOUT} (1 day). */
  private static Duration timeout(String what, Duration d, Duration min) {
    return Durations.check(what, d, min, Durations.MAX_TIMEOUT);
  }

  /** A builder for {@code postgresql://user:pass@host:port/db?...} or {@code jdbc:postgresql://...}. */
  public static Builder builder(String url) {
    return new Builder(PostgresUrl.parse(url));
  }

  public PostgresUrl url() {
    return url;
  }

  /** The schema holding allot's tables and functions (created and migrated at connect). */
  public String schema() {
    return schema;
  }

  /** Most pooled connections (default 4); the LISTEN connection comes on top. */
  public int maxPoolSize() {
    return maxPoolSize;
  }

  /** How long a call waits for a pooled connection before failing with StoreUnavailableException (default 2 s). */
  public Duration connectionTimeout() {
    return connectionTimeout;
  }

  /** TCP connect timeout of a new connection (pgjdbc {@code connectTimeout}, whole seconds; default 2 s). */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * How long a call waits for the server's answer before the connection is considered dead (pgjdbc
   * {@code socketTimeout}, whole seconds; default 10 s): what bounds a call to a frozen server.
   */
  public Duration socketTimeout() {
    return socketTimeout;
  }

  /** How long {@code subscribe} waits for its LISTEN to be in place (default 5 s). */
  public Duration subscribeTimeout() {
    return subscribeTimeout;
  }

  /** How long the listener thread waits for notifications at a time (default 500 ms). */
  public Duration listenerPoll() {
    return listenerPoll;
  }

  /** After how long without traffic the listener checks its connection with a query (default 5 s). */
  public Duration listenerPing() {
    return listenerPing;
  }

  /** First delay between reconnection attempts of the listener (default 50 ms), doubling up to the max. */
  public Duration reconnectDelayMin() {
    return reconnectDelayMin;
  }

  /** Longest delay between reconnection attempts of the listener (default 2 s). */
  public Duration reconnectDelayMax() {
    return reconnectDelayMax;
  }

  /** {@code application_name} of the connections, unless the URL sets one (default {@code allot}). */
  public String applicationName() {
    return applicationName;
  }

  /**
   * How long claims in a pool wait after a sign that the store lost state ({@link Safety#lostStateGuard()}): the
   * builder's, else the URL's {@code allot_guard}, else {@link Safety#DEFAULT_GUARD}. At least the longest member
   * lease TTL.
   */
  public Duration lostStateGuard() {
    return lostStateGuard;
  }

  /**
   * How long past its end (store time) a lease must be before its units are claimed or its id registered again
   * ({@link Safety#clockMargin()}): the builder's, else the URL's {@code allot_clock_margin}, else
   * {@link Safety#DEFAULT_CLOCK_MARGIN}.
   */
  public Duration clockMargin() {
    return clockMargin;
  }

  /**
   * The {@code statement_timeout} of every connection: {@link #socketTimeout()} as the driver applies it (whole
   * seconds, rounded up) less a tenth of it and at least 500 ms less (9 s for the default 10 s). A statement that
   * runs too long (a claim waiting for a lock) is then cancelled by the server, and rolled back, before the client
   * gives up on it, instead of being applied after the client reported a failure.
   */
  public Duration statementTimeout() {
    long socketMs = Math.max(1, (socketTimeout.toMillis() + 999) / 1000) * 1000;
    return Duration.ofMillis(socketMs - Math.max(500, socketMs / 10));
  }

  /** The address and schema, for messages: never the password. */
  public String describe() {
    return url.description() + " (schema " + schema + ")";
  }

  @Override
  public String toString() {
    return "PostgresStoreConfig[" + describe() + ", maxPoolSize=" + maxPoolSize + ", lostStateGuard="
        + lostStateGuard + ", clockMargin=" + clockMargin + "]";
  }

  public static final class Builder {
    private final PostgresUrl url;
    private String schema;
    private int maxPoolSize = 4;
    private Duration connectionTimeout = Duration.ofSeconds(2);
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration socketTimeout = Duration.ofSeconds(10);
    private Duration subscribeTimeout = Duration.ofSeconds(5);
    private Duration listenerPoll = Duration.ofMillis(500);
    private Duration listenerPing = Duration.ofSeconds(5);
    private Duration reconnectDelayMin = Duration.ofMillis(50);
    private Duration reconnectDelayMax = Duration.ofSeconds(2);
    private String applicationName = "allot";
    private Duration lostStateGuard;
    private Duration clockMargin;

    private Builder(PostgresUrl url) {
      this.url = url;
    }

    /** Overrides the URL's {@code allot_schema} and the default {@code allot}. */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    public Builder maxPoolSize(int maxPoolSize) {
      this.maxPoolSize = maxPoolSize;
      return this;
    }

    public Builder connectionTimeout(Duration d) {
      this.connectionTimeout = d;
      return this;
    }

    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    public Builder socketTimeout(Duration d) {
      this.socketTimeout = d;
      return this;
    }

    public Builder subscribeTimeout(Duration d) {
      this.subscribeTimeout = d;
      return this;
    }

    public Builder listenerPoll(Duration d) {
      this.listenerPoll = d;
      return this;
    }

    public Builder listenerPing(Duration d) {
      this.listenerPing = d;
      return this;
    }

    public Builder reconnectDelay(Duration min, Duration max) {
      this.reconnectDelayMin = min;
      this.reconnectDelayMax = max;
      return this;
    }

    public Builder applicationName(String name) {
      this.applicationName = name;
      return this;
    }

    /** Overrides the URL's {@code allot_guard} and the default (see {@link PostgresStoreConfig#lostStateGuard()}). */
    public Builder lostStateGuard(Duration d) {
      this.lostStateGuard = Objects.requireNonNull(d, "lostStateGuard");
      return this;
    }

    /**
     * Overrides the URL's {@code allot_clock_margin} and the default (see {@link PostgresStoreConfig#clockMargin()}).
     */
    public Builder clockMargin(Duration d) {
      this.clockMargin = Objects.requireNonNull(d, "clockMargin");
      return this;
    }

    public PostgresStoreConfig build() {
      return new PostgresStoreConfig(this);
    }
  }
}

package io.allot.store.redis;

import io.allot.store.Durations;
import io.allot.store.Safety;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How {@link RedisStore} reaches Redis: a standalone server, or Redis Cluster seed nodes (the topology is discovered
 * from them). Build with {@link #builder(String...)} or parse a URI with {@link #fromUri(String)}
 * ({@code redis://}, {@code rediss://}, {@code redis-cluster://}, {@code rediss-cluster://}).
 *
 * <p>Addresses are {@code host:port} ({@code [v6addr]:port} for IPv6; the port defaults to 6379) and are kept as
 * {@code host:port}. Defaults: no password, no TLS, database 0, connect and command timeout 2 s, reconnect backoff
 * 10 ms doubling up to 2 s, at most 1000 commands queued per connection, client name {@code allot}, lost-state guard
 * {@link Safety#DEFAULT_GUARD} and clock margin {@link Safety#DEFAULT_CLOCK_MARGIN}, eviction refused. Durations are
 * bounded ({@link Durations#check}): the lost-state guard 0 to 30 days, the others at most 1 day.
 *
 * @param addresses         one address (standalone) or the Cluster seed nodes, as {@code host:port}
 * @param cluster           whether the addresses are Redis Cluster nodes
 * @param username          ACL user ({@code AUTH user password}), or null for the default user
 * @param password          password, or null for none; never shown by {@link #toString()} or {@link #describe()}
 * @param database          database number; always 0 with Cluster
 * @param tls               whether to connect with TLS
 * @param tlsVerify         how the server certificate is checked under TLS
 * @param caPemFiles        root CA certificates (PEM) to trust instead of the JVM's; only with TLS
 * @param connectTimeout    how long a TCP (and TLS) connect may take
 * @param commandTimeout    how long one call waits for its answer before failing with
 *                          {@link io.allot.store.StoreUnavailableException}
 * @param reconnectDelayMin reconnect backoff: first delay
 * @param reconnectDelayMax reconnect backoff: largest delay (the delay doubles up to it)
 * @param requestQueueSize  commands queued per connection (in flight or buffered) before new ones are rejected
 * @param clientName        {@code CLIENT SETNAME} of the connections, or null for none
 * @param lostStateGuard    how long claims in a pool wait after a sign that Redis lost state ({@link
 *                          Safety#lostStateGuard()}); at least the longest member lease TTL
 * @param clockMargin       how long past its expiry an owner's lease must be before its units may be taken ({@link
 *                          Safety#clockMargin()})
 * @param allowEviction     connect even if {@code maxmemory-policy} is not {@code noeviction} (reported as a finding
 *                          instead of refused): evicted keys take registrations and ownership with them
 */
public record RedisStoreConfig(List<String> addresses, boolean cluster, String username, String password,
    int database, boolean tls, TlsVerify tlsVerify, List<Path> caPemFiles, Duration connectTimeout,
    Duration commandTimeout, Duration reconnectDelayMin, Duration reconnectDelayMax, int requestQueueSize,
    String clientName, Duration lostStateGuard, Duration clockMargin, boolean allowEviction) {

  /** How a TLS server certificate is checked. */
  public enum TlsVerify {
    /** Chain to a trusted root and host name (the default). */
    FULL,
    /** Chain to a trusted root only. */
    CA,
    /** Nothing (encryption without authentication of the server: tests only). */
    NONE
  }

  /**
   * Checks every setting.
   *
   * @throws IllegalArgumentException naming the setting that is wrong
   */
  public RedisStoreConfig {
    Objects.requireNonNull(addresses, "addresses");
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("at least one Redis address (host:port) is needed");
    }
    List<String> normalized = new ArrayList<>();
    for (String a : addresses) {
      if (a == null || a.isBlank()) {
        throw new IllegalArgumentException("empty Redis address in " + addresses);
      }
      normalized.add(RedisAddress.parse(a).toString());
    }
    addresses = List.copyOf(normalized);
    if (!cluster && addresses.size() > 1) {
      throw new IllegalArgumentException("several Redis addresses " + addresses + " need cluster mode");
    }
    if (username != null && password == null) {
      throw new IllegalArgumentException("username '" + username + "' needs a password");
    }
    if (database < 0) {
      throw new IllegalArgumentException("database must be >= 0 but was " + database);
    }
    if (cluster && database != 0) {
      throw new IllegalArgumentException("Redis Cluster has only database 0, not " + database);
    }
    if (tlsVerify == null) {
      throw new IllegalArgumentException("tlsVerify must be FULL, CA or NONE but was null");
    }
    caPemFiles = List.copyOf(caPemFiles);
    if (!tls && !caPemFiles.isEmpty()) {
      throw new IllegalArgumentException("caPemFiles " + caPemFiles + " need TLS");
    }
    Durations.check("connectTimeout", connectTimeout, Durations.POSITIVE, Durations.MAX_TIMEOUT);
    Durations.check("commandTimeout", commandTimeout, Durations.POSITIVE, Durations.MAX_TIMEOUT);
    Durations.check("reconnectDelay min", reconnectDelayMin, Durations.POSITIVE, Durations.MAX_TIMEOUT);
    Durations.check("reconnectDelay max", reconnectDelayMax, Durations.POSITIVE, Durations.MAX_TIMEOUT);
    if (reconnectDelayMax.compareTo(reconnectDelayMin) < 0) {
      throw new IllegalArgumentException("reconnectDelay max " + reconnectDelayMax + " < min " + reconnectDelayMin);
    }
    if (requestQueueSize < 1) {
      throw new IllegalArgumentException("requestQueueSize must be >= 1 but was " + requestQueueSize);
    }
    Durations.check("lostStateGuard", lostStateGuard, Duration.ZERO, Durations.MAX_HOLD);
    Durations.check("clockMargin", clockMargin, Duration.ZERO, Durations.MAX_TIMEOUT);
  }

  /** A builder for these addresses: one = standalone, several = Cluster seed nodes (see {@link Builder#cluster}). */
  public static Builder builder(String... addresses) {
    return new Builder(List.of(addresses));
  }

  /** A builder for these addresses: one = standalone, several = Cluster seed nodes (see {@link Builder#cluster}). */
  public static Builder builder(List<String> addresses) {
    return new Builder(addresses);
  }

  /**
   * Parses a store URI: {@code redis://[[user]:password@]host[:port][/db][?param=value&...]}, {@code rediss://}
   * (TLS), {@code redis-cluster://[[user]:password@]host:port,host:port[?...]}, {@code rediss-cluster://}. Parameters:
   * {@code ca} (root CA PEM files, comma-separated), {@code verify} ({@code full}, {@code ca}, {@code none}),
   * {@code timeout} and {@code connect_timeout} ({@code 500ms}, {@code 2s} or milliseconds), {@code client_name},
   * {@code queue} (request queue size), {@code guard} (lost-state guard), {@code clock_margin},
   * {@code allow_eviction} ({@code true} or {@code false}). User, password and values are percent-decoded.
   *
   * @throws IllegalArgumentException naming the URI (without its password) and the part that is wrong
   */
  public static RedisStoreConfig fromUri(String uri) {
    return RedisUri.parse(uri);
  }

  /**
   * Where this is, as a URI without password and parameters, e.g. {@code redis://127.0.0.1:6379/2} or
   * {@code rediss-cluster://10.0.0.1:7000,10.0.0.2:7000}.
   */
  public String describe() {
    return (tls ? "rediss" : "redis") + (cluster ? "-cluster" : "") + "://" + String.join(",", addresses)
        + (database == 0 ? "" : "/" + database);
  }

  /** Every setting but the password (shown as {@code ***}). */
  @Override
  public String toString() {
    return "RedisStoreConfig[" + describe() + ", user=" + username + ", password=" + (password == null ? "none" : "***")
        + ", tlsVerify=" + tlsVerify + ", ca=" + caPemFiles + ", connectTimeout=" + connectTimeout
        + ", commandTimeout=" + commandTimeout + ", reconnect=" + reconnectDelayMin + ".." + reconnectDelayMax
        + ", requestQueueSize=" + requestQueueSize + ", clientName=" + clientName + ", lostStateGuard="
        + lostStateGuard + ", clockMargin=" + clockMargin + ", allowEviction=" + allowEviction + "]";
  }

  /** Settings for a {@link RedisStoreConfig}; {@link #build()} checks them all. Not thread-safe. */
  public static final class Builder {
    private final List<String> addresses;
    private Boolean cluster;
    private String username;
    private String password;
    private int database;
    private boolean tls;
    private TlsVerify tlsVerify = TlsVerify.FULL;
    private final List<Path> caPemFiles = new ArrayList<>();
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration commandTimeout = Duration.ofSeconds(2);
    private Duration reconnectDelayMin = Duration.ofMillis(10);
    private Duration reconnectDelayMax = Duration.ofSeconds(2);
    private int requestQueueSize = 1000;
    private String clientName = "allot";
    private Duration lostStateGuard = Safety.DEFAULT_GUARD;
    private Duration clockMargin = Safety.DEFAULT_CLOCK_MARGIN;
    private boolean allowEviction;

    private Builder(List<String> addresses) {
      this.addresses = new ArrayList<>(Objects.requireNonNull(addresses, "addresses"));
    }

    /** Whether the addresses are Redis Cluster nodes; by default, if there are several. */
    public Builder cluster(boolean cluster) {
      this.cluster = cluster;
      return this;
    }

    /** Password ({@code AUTH password}); null for none. */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /** ACL user name ({@code AUTH user password}); null for the default user. */
    public Builder username(String username) {
      this.username = username;
      return this;
    }

    /** Database number (standalone only; Redis Cluster has only database 0). */
    public Builder database(int database) {
      this.database = database;
      return this;
    }

    /** Connect with TLS. */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /** How the server certificate is checked (default {@link TlsVerify#FULL}). */
    public Builder tlsVerify(TlsVerify verify) {
      this.tlsVerify = verify;
      return this;
    }

    /**
     * Trust only the root certificates in these PEM files (implies TLS); without any, the JVM's default trust
     * store is used.
     */
    public Builder caPemFiles(List<Path> files) {
      this.caPemFiles.addAll(files);
      this.tls |= !files.isEmpty();
      return this;
    }

    /** How long a connect may take. */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    /** How long one call waits for its answer before failing with StoreUnavailableException. */
    public Builder commandTimeout(Duration d) {
      this.commandTimeout = d;
      return this;
    }

    /** Reconnect backoff: starts at {@code min}, doubles, never above {@code max}. */
    public Builder reconnectDelay(Duration min, Duration max) {
      this.reconnectDelayMin = min;
      this.reconnectDelayMax = max;
      return this;
    }

    /** Commands queued per connection (in flight or buffered) before new ones are rejected. */
    public Builder requestQueueSize(int size) {
      this.requestQueueSize = size;
      return this;
    }

    /** {@code CLIENT SETNAME} of the connections (null for none). */
    public Builder clientName(String name) {
      this.clientName = name;
      return this;
    }

    /**
     * How long claims in a pool wait after a sign that Redis lost state (default {@link Safety#DEFAULT_GUARD}); at
     * least the longest member lease TTL, or the guard does not cover those members.
     */
    public Builder lostStateGuard(Duration guard) {
      this.lostStateGuard = guard;
      return this;
    }

    /**
     * How long past its expiry (Redis time) an owner's lease must be before a claim may take its units (default
     * {@link Safety#DEFAULT_CLOCK_MARGIN}): a forward step of Redis's clock smaller than this is harmless.
     */
    public Builder clockMargin(Duration margin) {
      this.clockMargin = margin;
      return this;
    }

    /**
     * Connect even if {@code maxmemory-policy} is not {@code noeviction} (default false: refused). Evicted keys take
     * registrations, ownership and tokens with them; the connection then reports it as a finding.
     */
    public Builder allowEviction(boolean allow) {
      this.allowEviction = allow;
      return this;
    }

    /**
     * The configuration.
     *
     * @throws IllegalArgumentException naming the setting that is wrong
     */
    public RedisStoreConfig build() {
      return new RedisStoreConfig(addresses, cluster == null ? addresses.size() > 1 : cluster, username, password,
          database, tls, tlsVerify, caPemFiles, connectTimeout, commandTimeout, reconnectDelayMin, reconnectDelayMax,
          requestQueueSize, clientName, lostStateGuard, clockMargin, allowEviction);
    }
  }
}

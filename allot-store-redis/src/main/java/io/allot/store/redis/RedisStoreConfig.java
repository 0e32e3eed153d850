package io.allot.store.redis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How {@link RedisStore} reaches Redis. One address means a standalone server, several mean Redis Cluster seed
 * nodes (the topology is discovered from them). Build with {@link #builder(String...)}.
 *
 * <p>Addresses are {@code host:port} ({@code [v6addr]:port} for IPv6; port defaults to 6379). Defaults: no
 * password, no TLS, connect and command timeout 2 s, reconnect backoff 10 ms doubling up to 2 s, at most 1000
 * commands queued per connection.
 */
public final class RedisStoreConfig {

  /** How a TLS server certificate is checked. */
  public enum TlsVerify {
    /** Chain to a trusted root and host name (the default). */
    FULL,
    /** Chain to a trusted root only. */
    CA,
    /** Nothing (encryption without authentication of the server: tests only). */
    NONE
  }

  private final List<String> addresses;
  private final String username;
  private final String password;
  private final int database;
  private final boolean tls;
  private final TlsVerify tlsVerify;
  private final List<Path> caPemFiles;
  private final Duration connectTimeout;
  private final Duration commandTimeout;
  private final Duration reconnectDelayMin;
  private final Duration reconnectDelayMax;
  private final int requestQueueSize;
  private final String clientName;

  private RedisStoreConfig(Builder b) {
    this.addresses = List.copyOf(b.addresses);
    this.username = b.username;
    this.password = b.password;
    this.database = b.database;
    this.tls = b.tls;
    this.tlsVerify = b.tlsVerify;
    this.caPemFiles = List.copyOf(b.caPemFiles);
    this.connectTimeout = b.connectTimeout;
    this.commandTimeout = b.commandTimeout;
    this.reconnectDelayMin = b.reconnectDelayMin;
    this.reconnectDelayMax = b.reconnectDelayMax;
    this.requestQueueSize = b.requestQueueSize;
    this.clientName = b.clientName;
  }

  public static Builder builder(String... addresses) {
    return new Builder(List.of(addresses));
  }

  public static Builder builder(List<String> addresses) {
    return new Builder(addresses);
  }

  public List<String> addresses() {
    return addresses;
  }

  public boolean cluster() {
    return addresses.size() > 1;
  }

  public String username() {
    return username;
  }

  public String password() {
    return password;
  }

  public int database() {
    return database;
  }

  public boolean tls() {
    return tls;
  }

  public TlsVerify tlsVerify() {
    return tlsVerify;
  }

  public List<Path> caPemFiles() {
    return caPemFiles;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public Duration commandTimeout() {
    return commandTimeout;
  }

  public Duration reconnectDelayMin() {
    return reconnectDelayMin;
  }

  public Duration reconnectDelayMax() {
    return reconnectDelayMax;
  }

  public int requestQueueSize() {
    return requestQueueSize;
  }

  public String clientName() {
    return clientName;
  }

  /** The addresses as shown in messages (never the password). */
  public String describe() {
    return (cluster() ? "Redis Cluster " : "Redis ") + String.join(",", addresses) + (tls ? " (TLS)" : "");
  }

  @Override
  public String toString() {
    return "RedisStoreConfig[" + describe() + ", user=" + username + ", password=" + (password == null ? "none" : "***")
        + ", db=" + database + ", tlsVerify=" + tlsVerify + ", ca=" + caPemFiles + ", connectTimeout="
        + connectTimeout + ", commandTimeout=" + commandTimeout + ", reconnect=" + reconnectDelayMin + ".."
        + reconnectDelayMax + ", requestQueueSize=" + requestQueueSize + "]";
  }

  public static final class Builder {
    private final List<String> addresses;
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

    private Builder(List<String> addresses) {
      if (addresses.isEmpty()) {
        throw new IllegalArgumentException("at least one Redis address (host:port) is needed");
      }
      addresses.forEach(a -> {
        if (a == null || a.isBlank()) {
          throw new IllegalArgumentException("empty Redis address in " + addresses);
        }
      });
      this.addresses = new ArrayList<>(addresses);
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
      if (database < 0) {
        throw new IllegalArgumentException("database must be >= 0");
      }
      this.database = database;
      return this;
    }

    /** Connect with TLS. */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    public Builder tlsVerify(TlsVerify verify) {
      this.tlsVerify = Objects.requireNonNull(verify);
      return this;
    }

    /**
     * Trust only the root certificates in these PEM files (implies TLS); without any, the JVM's default trust
     * store is used.
     */
    public Builder caPemFiles(List<Path> files) {
      this.caPemFiles.addAll(files);
      if (!files.isEmpty()) {
        this.tls = true;
      }
      return this;
    }

    public Builder connectTimeout(Duration d) {
      this.connectTimeout = positive(d, "connectTimeout");
      return this;
    }

    /** How long one call waits for its answer before failing with StoreUnavailableException. */
    public Builder commandTimeout(Duration d) {
      this.commandTimeout = positive(d, "commandTimeout");
      return this;
    }

    /** Reconnect backoff: starts at {@code min}, doubles, never above {@code max}. */
    public Builder reconnectDelay(Duration min, Duration max) {
      this.reconnectDelayMin = positive(min, "reconnectDelay min");
      this.reconnectDelayMax = positive(max, "reconnectDelay max");
      if (max.compareTo(min) < 0) {
        throw new IllegalArgumentException("reconnectDelay max < min");
      }
      return this;
    }

    /** Commands queued per connection (in flight or buffered) before new ones are rejected. */
    public Builder requestQueueSize(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("requestQueueSize must be >= 1");
      }
      this.requestQueueSize = size;
      return this;
    }

    /** {@code CLIENT SETNAME} of the connections (null for none). */
    public Builder clientName(String name) {
      this.clientName = name;
      return this;
    }

    public RedisStoreConfig build() {
      return new RedisStoreConfig(this);
    }

    private static Duration positive(Duration d, String what) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive");
      }
      return d;
    }
  }
}

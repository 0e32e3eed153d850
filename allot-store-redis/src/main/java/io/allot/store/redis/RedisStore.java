package io.allot.store.redis;

import io.allot.store.Membership;
import io.allot.store.Ownership;
import io.allot.store.RouteWeights;
import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.spi.AbstractStore;
import io.allot.store.spi.OnceWarnings;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Store} on Redis (standalone or Redis Cluster), through Lettuce. Open one with
 * {@code Stores.open("redis://host:6379")} ({@link RedisStoreProvider}) or {@link #connect(RedisStoreConfig)}. Key
 * layout: {@link RedisKeys}. Each role is its own class over one shared {@link RedisConnection}:
 * {@link RedisClock}, {@link RedisLeadership}, {@link RedisMembership}, {@link RedisOwnership}, {@link RedisTables},
 * {@link RedisNotifications}, {@link RedisSeedKeys}. Atomic operations are Lua scripts ({@link Scripts}), loaded at
 * connect and run with EVALSHA, falling back to EVAL when the server answers NOSCRIPT (script cache flushed,
 * restarted server, new Cluster node).
 *
 * <h2>Connection behaviour</h2>
 * One multiplexed connection for commands (plus one for pub/sub, opened on the first subscription), kept alive by
 * Lettuce's automatic reconnect with a bounded exponential backoff. While disconnected, calls fail at once with
 * {@link StoreUnavailableException} ({@code REJECT_COMMANDS}); commands in flight when the connection drops fail too
 * and are <em>not</em> replayed after reconnect (Lettuce drops its in-flight queue under {@code REJECT_COMMANDS}),
 * so a caller never sees a write it gave up on applied later behind its back. The request queue is bounded
 * ({@link RedisStoreConfig#requestQueueSize()}). Every command has a timeout.
 *
 * <h2>Safety</h2>
 * At connect, {@link RedisDurability} checks every node's durability settings ({@link #safety()}); a replica, or a
 * {@code maxmemory-policy} that evicts (unless allowed), is refused. Claims honour the clock margin and each pool's
 * lost-state guard (the Lua of {@link Scripts#CLAIM_ALL}); tokens are never below Redis time in microseconds.
 *
 * <p>Subscriptions survive reconnects (Lettuce re-subscribes), but messages published meanwhile are lost: poll too.
 * Each store owns its Lettuce client resources (2 I/O threads): share one per process.
 */
public final class RedisStore extends AbstractStore {
  private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

  private final RedisConnection connection;
  private final RedisNotifications notifications;

  private RedisStore(RedisConnection connection, Safety safety, RedisSeedKeys seedKeys,
      RedisNotifications notifications) {
    super(safety, new RedisClock(connection), new RedisLeadership(connection), new RedisTables(connection, seedKeys),
        notifications, seedKeys);
    this.connection = connection;
    this.notifications = notifications;
  }

  /**
   * Connects (eagerly).
   *
   * @throws StoreUnavailableException if no server answers
   * @throws IllegalArgumentException if a setting is unusable (e.g. an unreadable CA file), or the server must not
   *     be used: a replica, or a {@code maxmemory-policy} other than {@code noeviction} without
   *     {@link RedisStoreConfig#allowEviction()} (the message names the setting)
   */
  public static RedisStore connect(RedisStoreConfig config) {
    return open(new RedisConnection(Objects.requireNonNull(config, "config")), List.of());
  }

  /** The store over {@code connection} once its durability check passed ({@code more} added to its findings). */
  private static RedisStore open(RedisConnection connection, List<String> more) {
    Safety safety;
    try {
      safety = RedisDurability.check(connection);
    } catch (RuntimeException e) {
      connection.close(() -> { });
      throw e;
    }
    if (!more.isEmpty()) {
      List<String> findings = new ArrayList<>(safety.findings());
      findings.addAll(more);
      safety = new Safety(safety.lostStateGuard(), safety.clockMargin(), safety.lossPossible(), findings);
    }
    return new RedisStore(connection, safety, new RedisSeedKeys(connection), new RedisNotifications(connection));
  }

  /** Connects with default settings: one address ({@code host:port}) = standalone, several = Cluster seeds. */
  public static RedisStore connect(String... addresses) {
    return connect(RedisStoreConfig.builder(addresses).build());
  }

  /** The configuration this store was connected with. */
  public RedisStoreConfig config() {
    return connection.config();
  }

  /** Whether the command connection is currently up (it reconnects by itself). */
  public boolean isConnected() {
    return connection.isOpen();
  }

  @Override
  public String describe() {
    return connection.where();
  }

  @Override
  public Membership membership(String pool) {
    return new RedisMembership(connection, Store.checkPool(pool));
  }

  @Override
  public Ownership ownership(String pool) {
    return new RedisOwnership(connection, Store.checkPool(pool));
  }

  /** The live routing weights of {@code pool} ({@link RedisRouteWeights}: its keys in the pool's slot). */
  @Override
  public io.allot.store.events.Events events() {
    return new RedisEvents(connection);
  }

  @Override
  public RouteWeights routeWeights(String pool) {
    return new RedisRouteWeights(connection, Store.checkPool(pool));
  }

  /** The long-running task specs of {@code pool} ({@link RedisTaskSpecs}: its keys all in one slot, {@link SpecKeys}). */
  @Override
  public io.allot.store.tasks.TaskSpecs taskSpecs(String pool) {
    return new RedisTaskSpecs(connection, Store.checkPool(pool));
  }

  /**
   * The job queue {@code name} ({@link RedisJobQueue}: its keys all in one slot, {@link JobKeys}).
   *
   * @throws IllegalArgumentException if the name is not a valid queue name ({@link io.allot.store.jobs.JobLimits})
   */
  @Override
  public io.allot.store.jobs.JobQueue jobQueue(String name) {
    return new RedisJobQueue(connection, safety().clockMargin(), name);
  }

  /** The job queues as a whole ({@link RedisJobQueues}: found by SCAN on every node). */
  @Override
  public io.allot.store.jobs.JobQueues jobQueues() {
    return new RedisJobQueues(connection);
  }

  @Override
  public void close() {
    connection.close(notifications::close);
  }

  /**
   * Connects (eagerly) through the application's Lettuce {@code client}: its event loops and client options are
   * reused, {@code config} gives the server (one address: a {@link RedisClient} is standalone), credentials, database,
   * TLS, command timeout and the safety settings. The durability check and script loading are those of
   * {@link #connect(RedisStoreConfig)}. {@link #close()} closes the store's connections and leaves the client open
   * (its owner shuts it down). allot's own clients reject commands while disconnected, so a write a caller gave up on
   * is never applied later; a client that buffers them instead is reported in {@link #safety()}'s findings.
   *
   * @throws IllegalArgumentException if {@code config} is a Cluster's, or the server must not be used (see above)
   * @throws StoreUnavailableException if the server does not answer
   */
  public static RedisStore connect(RedisClient client, RedisStoreConfig config) {
    Objects.requireNonNull(client, "client");
    if (config.cluster() || config.addresses().size() != 1) {
      throw new IllegalArgumentException("a RedisClient serves one standalone server, not " + config.describe());
    }
    List<String> findings = new ArrayList<>();
    ClientOptions.DisconnectedBehavior whileDown = client.getOptions().getDisconnectedBehavior();
    if (whileDown != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) {
      findings.add(config.describe() + ": the application's RedisClient queues commands while disconnected "
          + "(ClientOptions.disconnectedBehavior " + whileDown + "): a write a caller gave up on may be applied "
          + "after the reconnect; set it to REJECT_COMMANDS");
      OnceWarnings.warn(log, config.describe(), findings.get(0), findings.get(0));
    }
    return open(new RedisConnection(config, client, LettuceClients.uri(config.addresses().get(0), config)), findings);
  }
}

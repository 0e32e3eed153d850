package io.allot.store.redis;

import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.MemberRecord;
import io.allot.store.Ownership;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Store} on Redis (standalone, or Redis Cluster when configured with several addresses), through Lettuce.
 * Key layout: {@link RedisKeys}. Atomic operations are Lua scripts ({@link Scripts}), loaded at connect and run
 * with EVALSHA, falling back to EVAL when the server answers NOSCRIPT (script cache flushed, restarted server, new
 * Cluster node).
 *
 * <h2>Connection behaviour</h2>
 * One multiplexed connection for commands (plus one for pub/sub, opened on the first {@link #subscribe}), kept
 * alive by Lettuce's automatic reconnect with a bounded exponential backoff. While disconnected, calls fail at once
 * with {@link StoreUnavailableException} ({@code REJECT_COMMANDS}); commands in flight when the connection drops
 * fail too and are <em>not</em> replayed after reconnect (Lettuce drops its in-flight queue under
 * {@code REJECT_COMMANDS}), so a caller never sees a write it gave up on applied later behind its back. The
 * request queue is bounded ({@link RedisStoreConfig#requestQueueSize()}). Every command has a timeout.
 *
 * <p>Subscriptions survive reconnects (Lettuce re-subscribes), but messages published meanwhile are lost: poll too.
 */
public final class RedisStore implements Store {
  private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

  /** Error replies that mean "not now" rather than "wrong request". */
  private static final List<String> TRANSIENT_ERRORS =
      List.of("LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS", "NOAUTH");

  private final RedisStoreConfig config;
  private final String where;
  private final boolean cluster;
  private final ClientResources resources;
  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterCommands<String, String> redis;
  private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSubFactory;
  private final AtomicBoolean closed = new AtomicBoolean();

  private final Object subLock = new Object();
  private StatefulRedisPubSubConnection<String, String> pubSub; // guarded by subLock
  private final Map<String, CopyOnWriteArrayList<Sub>> listeners = new ConcurrentHashMap<>();
  private final ExecutorService dispatcher;

  private RedisStore(RedisStoreConfig config) {
    this.config = config;
    this.where = config.describe();
    this.cluster = config.cluster();
    List<RedisURI> uris = new ArrayList<>();
    for (String address : config.addresses()) {
      uris.add(uri(address, config));
    }
    // built before connecting, so a bad setting (unreadable CA file) is reported as such, not as "unavailable"
    ClientOptions options = cluster ? clusterOptions(config) : clientOptions(config);
    this.resources = DefaultClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2)
        .reconnectDelay(Delay.exponential(config.reconnectDelayMin(), config.reconnectDelayMax(), 2,
            TimeUnit.MILLISECONDS))
        .build();
    AbstractRedisClient c = null;
    try {
      if (cluster) {
        RedisClusterClient cc = RedisClusterClient.create(resources, uris);
        c = cc;
        cc.setOptions((ClusterClientOptions) options);
        StatefulRedisClusterConnection<String, String> conn = cc.connect();
        this.connection = conn;
        this.redis = conn.sync();
        this.pubSubFactory = cc::connectPubSub;
      } else {
        RedisClient rc = RedisClient.create(resources, uris.get(0));
        c = rc;
        rc.setOptions(options);
        var conn = rc.connect();
        this.connection = conn;
        this.redis = conn.sync();
        this.pubSubFactory = rc::connectPubSub;
      }
    } catch (RuntimeException e) {
      shutdown(c, resources);
      throw new StoreUnavailableException("cannot connect to " + where + ": " + rootMessage(e), e);
    }
    this.client = c;
    this.dispatcher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "allot-redis-notify");
      t.setDaemon(true);
      return t;
    });
    loadScripts();
    log.info("connected to {}", where);
  }

  /** Connects (eagerly: fails with {@link StoreUnavailableException} if no server answers). */
  public static RedisStore connect(RedisStoreConfig config) {
    return new RedisStore(Objects.requireNonNull(config, "config"));
  }

  /** Connects with default settings: one address = standalone, several = Cluster seeds. */
  public static RedisStore connect(String... addresses) {
    return connect(RedisStoreConfig.builder(addresses).build());
  }

  public RedisStoreConfig config() {
    return config;
  }

  /** Whether the command connection is currently up (it reconnects by itself). */
  public boolean isConnected() {
    return connection.isOpen();
  }

  // ---------------------------------------------------------------- lists and hashes

  @Override
  public List<String> list(String key) {
    Objects.requireNonNull(key, "key");
    return call("LRANGE " + key, () -> List.copyOf(redis.lrange(key, 0, -1)));
  }

  @Override
  public boolean addToList(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Long added = call("add to list " + key,
        () -> run(Scripts.ADD_IF_ABSENT, ScriptOutputType.INTEGER, new String[] {key}, value));
    return added != null && added == 1L;
  }

  @Override
  public boolean removeFromList(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Long removed = call("LREM " + key, () -> redis.lrem(key, 0, value));
    return removed != null && removed > 0;
  }

  @Override
  public Map<String, String> hash(String key) {
    Objects.requireNonNull(key, "key");
    return call("HGETALL " + key, () -> Map.copyOf(redis.hgetall(key)));
  }

  @Override
  public String hashField(String key, String field) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(field, "field");
    return call("HGET " + key, () -> redis.hget(key, field));
  }

  @Override
  public void replaceList(String key, List<String> values) {
    Objects.requireNonNull(key, "key");
    String[] args = values.toArray(new String[0]);
    for (String v : args) {
      Objects.requireNonNull(v, "list values must not be null");
    }
    call("replace list " + key, () -> run(Scripts.REPLACE_LIST, ScriptOutputType.INTEGER, new String[] {key}, args));
  }

  @Override
  public long timeMillis() {
    List<String> time = call("TIME", redis::time);
    return Long.parseLong(time.get(0)) * 1000L + Long.parseLong(time.get(1)) / 1000L;
  }

  // ---------------------------------------------------------------- leases

  @Override
  public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    String ttlMs = ttlMillis(ttl);
    String leaseKey = RedisKeys.lease(name);
    String tokenKey = RedisKeys.token(name);
    if (cluster) {
      RedisKeys.checkSameSlot("acquire lease '" + name + "'", leaseKey, tokenKey);
    }
    String token = call("acquire lease " + name,
        () -> run(Scripts.ACQUIRE, ScriptOutputType.VALUE, new String[] {leaseKey, tokenKey}, holder, ttlMs));
    return token == null ? Optional.empty() : Optional.of(new Lease(name, holder, Long.parseLong(token)));
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    Objects.requireNonNull(lease, "lease");
    String ttlMs = ttlMillis(ttl);
    Long renewed = call("renew lease " + lease.name(), () -> run(Scripts.RENEW, ScriptOutputType.INTEGER,
        new String[] {RedisKeys.lease(lease.name())}, leaseValue(lease), ttlMs));
    return renewed != null && renewed == 1L;
  }

  @Override
  public void release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    call("release lease " + lease.name(), () -> run(Scripts.RELEASE, ScriptOutputType.INTEGER,
        new String[] {RedisKeys.lease(lease.name())}, leaseValue(lease)));
  }

  @Override
  public Optional<Lease> currentLeader(String name) {
    Objects.requireNonNull(name, "name");
    String value = call("GET lease " + name, () -> redis.get(RedisKeys.lease(name)));
    return parseLease(name, value);
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
    String[] keys = {hashKey, RedisKeys.epoch(hashKey), RedisKeys.groupFields(hashKey, group),
        RedisKeys.owners(hashKey), RedisKeys.lease(lease.name())};
    if (cluster) {
      RedisKeys.checkSameSlot("publish into '" + hashKey + "'", keys);
    }
    String[] args = new String[3 + 2 * fields.size()];
    args[0] = leaseValue(lease);
    args[1] = group;
    args[2] = Store.notifyChannel(hashKey);
    int i = 3;
    for (Map.Entry<String, String> e : fields.entrySet()) {
      args[i++] = Objects.requireNonNull(e.getKey(), "field");
      args[i++] = Objects.requireNonNull(e.getValue(), "value");
    }
    List<Object> result = call("publish into " + hashKey,
        () -> run(Scripts.PUBLISH, ScriptOutputType.MULTI, keys, args));
    if (((Long) result.get(0)) == 1L) {
      return (Long) result.get(1);
    }
    String current = (String) result.get(1);
    throw new FencedException(lease, parseLease(lease.name(), current.isEmpty() ? null : current));
  }

  @Override
  public long epoch(String hashKey) {
    Objects.requireNonNull(hashKey, "hashKey");
    String value = call("GET epoch " + hashKey, () -> redis.get(RedisKeys.epoch(hashKey)));
    return value == null ? 0L : Long.parseLong(value);
  }

  // ---------------------------------------------------------------- membership and ownership

  @Override
  public long register(String pool, String id, int affinity, int capacity, Duration ttl) {
    checkMemberArgs(pool, id);
    checkWeights(id, affinity, capacity);
    String ttlMs = ttlMillis(ttl);
    String[] keys = poolKeys(pool, "register in", pool, RedisKeys.members(pool), RedisKeys.counter(pool));
    String session = call("register " + id + " in " + pool, () -> run(Scripts.REGISTER, ScriptOutputType.VALUE, keys,
        id, Integer.toString(affinity), Integer.toString(capacity), ttlMs, Store.membersChannel(pool)));
    return Long.parseLong(session);
  }

  @Override
  public boolean renewMember(String pool, String id, long session, Duration ttl) {
    checkMemberArgs(pool, id);
    String ttlMs = ttlMillis(ttl);
    String[] keys = {RedisKeys.members(pool)};
    Long renewed = call("renew member " + id + " in " + pool, () -> run(Scripts.RENEW_MEMBER,
        ScriptOutputType.INTEGER, keys, id, Long.toString(session), ttlMs));
    return renewed != null && renewed == 1L;
  }

  @Override
  public boolean updateMember(String pool, String id, long session, int affinity, int capacity) {
    checkMemberArgs(pool, id);
    checkWeights(id, affinity, capacity);
    String[] keys = {RedisKeys.members(pool)};
    Long updated = call("update member " + id + " in " + pool, () -> run(Scripts.UPDATE_MEMBER,
        ScriptOutputType.INTEGER, keys, id, Long.toString(session), Integer.toString(affinity),
        Integer.toString(capacity), Store.membersChannel(pool)));
    return updated != null && updated == 1L;
  }

  @Override
  public void deregister(String pool, String id, long session) {
    checkMemberArgs(pool, id);
    String[] keys = poolKeys(pool, "deregister from", pool, RedisKeys.members(pool));
    call("deregister " + id + " from " + pool, () -> run(Scripts.DEREGISTER, ScriptOutputType.INTEGER, keys,
        id, Long.toString(session), Store.membersChannel(pool)));
  }

  @Override
  public Map<String, MemberRecord> members(String pool) {
    Objects.requireNonNull(pool, "pool");
    Map<String, String> raw = call("HGETALL members of " + pool, () -> redis.hgetall(RedisKeys.members(pool)));
    Map<String, MemberRecord> out = new LinkedHashMap<>();
    raw.forEach((id, value) -> {
      MemberRecord r = parseMember(id, value);
      if (r == null) {
        log.warn("ignoring malformed registration '{}' of '{}' in {}", value, id, RedisKeys.members(pool));
      } else {
        out.put(id, r);
      }
    });
    return out;
  }

  @Override
  public OptionalLong claim(String pool, String unit, String member, long session) {
    Objects.requireNonNull(unit, "unit");
    Long token = claimAll(pool, List.of(unit), member, session).get(unit);
    return token == null ? OptionalLong.empty() : OptionalLong.of(token);
  }

  @Override
  public Map<String, Long> claimAll(String pool, List<String> units, String member, long session) {
    checkMemberArgs(pool, member);
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    if (units.isEmpty()) {
      return out;
    }
    String[] keys = poolKeys(pool, "claim in",
        RedisKeys.members(pool), RedisKeys.ownership(pool), RedisKeys.counter(pool));
    String[] args = new String[2 + units.size()];
    args[0] = member;
    args[1] = Long.toString(session);
    for (int i = 0; i < units.size(); i++) {
      args[2 + i] = Objects.requireNonNull(units.get(i), "unit");
    }
    List<Object> tokens = call("claim " + units.size() + " units in " + pool,
        () -> run(Scripts.CLAIM_ALL, ScriptOutputType.MULTI, keys, args));
    for (int i = 0; i < units.size(); i++) {
      String t = (String) tokens.get(i);
      if (t != null && !t.isEmpty()) {
        out.put(units.get(i), Long.parseLong(t));
      }
    }
    return out;
  }

  @Override
  public boolean releaseUnit(String pool, String unit, String member, long token) {
    checkMemberArgs(pool, member);
    Objects.requireNonNull(unit, "unit");
    String[] keys = {RedisKeys.ownership(pool)};
    Long released = call("release " + unit + " in " + pool, () -> run(Scripts.RELEASE_UNIT,
        ScriptOutputType.INTEGER, keys, unit, member, Long.toString(token), Store.ownersChannel(pool)));
    return released != null && released == 1L;
  }

  @Override
  public Map<String, Ownership> owners(String pool) {
    Objects.requireNonNull(pool, "pool");
    Map<String, String> raw = call("HGETALL ownership of " + pool, () -> redis.hgetall(RedisKeys.ownership(pool)));
    Map<String, Ownership> out = new LinkedHashMap<>();
    raw.forEach((unit, value) -> {
      Ownership o = parseOwnership(unit, value);
      if (o == null) {
        log.warn("ignoring malformed ownership '{}' of '{}' in {}", value, unit, RedisKeys.ownership(pool));
      } else {
        out.put(unit, o);
      }
    });
    return out;
  }

  @Override
  public boolean validToken(String pool, String unit, long token) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(unit, "unit");
    String[] keys = poolKeys(pool, "check a token in", RedisKeys.members(pool), RedisKeys.ownership(pool));
    Long valid = call("check token of " + unit + " in " + pool, () -> run(Scripts.VALID_TOKEN,
        ScriptOutputType.INTEGER, keys, unit, Long.toString(token)));
    return valid != null && valid == 1L;
  }

  /** The keys one membership script touches; in Cluster mode they must share a slot (the pool's). */
  private String[] poolKeys(String pool, String what, String... keys) {
    if (cluster) {
      String[] withPool = new String[keys.length + 1];
      withPool[0] = pool;
      System.arraycopy(keys, 0, withPool, 1, keys.length);
      RedisKeys.checkSameSlot(what + " pool '" + pool + "'", withPool);
    }
    return keys;
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

  /** {@code "affinity|capacity|session|leaseUntilMillis"}; null if malformed. */
  static MemberRecord parseMember(String id, String value) {
    String[] p = value.split("\\|", -1);
    if (p.length != 4) {
      return null;
    }
    try {
      return new MemberRecord(id, Integer.parseInt(p[0]), Integer.parseInt(p[1]), Long.parseLong(p[2]),
          Long.parseLong(p[3]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** {@code "member|session|token"} (the member id may itself contain '|'); null if malformed. */
  static Ownership parseOwnership(String unit, String value) {
    int t = value.lastIndexOf('|');
    int s = t <= 0 ? -1 : value.lastIndexOf('|', t - 1);
    if (s < 0) {
      return null;
    }
    try {
      return new Ownership(unit, value.substring(0, s), Long.parseLong(value.substring(s + 1, t)),
          Long.parseLong(value.substring(t + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- notification

  private final class Sub implements Subscription {
    private final String channel;
    private final Consumer<String> listener;
    private volatile boolean active = true;

    Sub(String channel, Consumer<String> listener) {
      this.channel = channel;
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
      StatefulRedisPubSubConnection<String, String> ps = pubSub();
      CopyOnWriteArrayList<Sub> subs = listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
      boolean first = subs.isEmpty();
      subs.add(sub);
      if (first) {
        try {
          call("SUBSCRIBE " + channel, () -> {
            ps.sync().subscribe(channel);
            return null;
          });
        } catch (RuntimeException e) {
          subs.remove(sub);
          listeners.remove(channel, List.of());
          throw e;
        }
      }
    }
    return sub;
  }

  private void unsubscribe(Sub sub) {
    synchronized (subLock) {
      CopyOnWriteArrayList<Sub> subs = listeners.get(sub.channel);
      if (subs == null || !subs.remove(sub) || !subs.isEmpty()) {
        return;
      }
      listeners.remove(sub.channel);
      if (pubSub != null && !closed.get()) {
        try {
          pubSub.sync().unsubscribe(sub.channel);
        } catch (RedisException e) {
          // no local listener is left, so stray messages are dropped; Lettuce may re-subscribe after reconnect
          log.debug("UNSUBSCRIBE {} on {} failed: {}", sub.channel, where, e.toString());
        }
      }
    }
  }

  private StatefulRedisPubSubConnection<String, String> pubSub() {
    if (pubSub == null) {
      StatefulRedisPubSubConnection<String, String> ps = call("connect for pub/sub", pubSubFactory::get);
      ps.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          dispatch(channel, message);
        }
      });
      pubSub = ps;
    }
    return pubSub;
  }

  /** Called on a Lettuce I/O thread: hand over to the single delivery thread at once. */
  private void dispatch(String channel, String message) {
    List<Sub> subs = listeners.get(channel);
    if (subs == null) {
      return;
    }
    for (Sub sub : subs) {
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

  @Override
  public void notify(String channel, String message) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(message, "message");
    call("PUBLISH " + channel, () -> redis.publish(channel, message));
  }

  // ---------------------------------------------------------------- lifecycle

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    listeners.values().forEach(subs -> subs.forEach(s -> s.active = false));
    listeners.clear();
    dispatcher.shutdownNow();
    synchronized (subLock) {
      if (pubSub != null) {
        closeQuietly(pubSub);
      }
    }
    closeQuietly(connection);
    shutdown(client, resources);
    log.info("closed connection to {}", where);
  }

  @Override
  public String toString() {
    return "RedisStore[" + where + "]";
  }

  // ---------------------------------------------------------------- internals

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("RedisStore for " + where + " is closed");
    }
  }

  private <T> T call(String op, Supplier<T> body) {
    checkOpen();
    try {
      return body.get();
    } catch (RedisException e) {
      throw translate(op, e);
    }
  }

  private <T> T run(Scripts.Script script, ScriptOutputType type, String[] keys, String... args) {
    try {
      return redis.evalsha(script.sha(), type, keys, args);
    } catch (RedisNoScriptException e) {
      log.debug("script {} not cached on {}: running it with EVAL", script.name(), where);
      return redis.eval(script.text(), type, keys, args);
    }
  }

  private void loadScripts() {
    try {
      for (Scripts.Script s : Scripts.ALL) {
        String sha = redis.scriptLoad(s.text());
        if (!s.sha().equals(sha)) {
          log.warn("{} returned SHA {} for script {}, expected {}", where, sha, s.name(), s.sha());
        }
      }
    } catch (RedisException e) {
      log.debug("could not preload scripts on {} ({}); EVAL will load them on first use", where, e.toString());
    }
  }

  private RuntimeException translate(String op, RedisException e) {
    String message = rootMessage(e);
    if (e instanceof RedisCommandTimeoutException) {
      return new StoreUnavailableException(
          where + " did not answer " + op + " within " + config.commandTimeout().toMillis() + " ms", e);
    }
    if (e instanceof RedisCommandInterruptedException) {
      Thread.currentThread().interrupt();
      return new StoreUnavailableException("interrupted while waiting for " + where + " (" + op + ")", e);
    }
    if (e instanceof RedisCommandExecutionException) {
      for (String prefix : TRANSIENT_ERRORS) {
        if (message.startsWith(prefix)) {
          return new StoreUnavailableException(where + " cannot serve " + op + " now: " + message, e);
        }
      }
      return new IllegalStateException(where + " refused " + op + ": " + message, e);
    }
    return new StoreUnavailableException(where + " unavailable for " + op + ": " + message, e);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    String message = String.valueOf(e.getMessage());
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
      if (t.getMessage() != null) {
        message = e.getMessage() + " (" + t.getMessage() + ")";
      }
    }
    return message;
  }

  private static String leaseValue(Lease lease) {
    return lease.token() + ":" + lease.holder();
  }

  private static Optional<Lease> parseLease(String name, String value) {
    if (value == null) {
      return Optional.empty();
    }
    int colon = value.indexOf(':');
    if (colon <= 0) {
      throw new IllegalStateException("malformed lease value '" + value + "' for '" + name + "'");
    }
    return Optional.of(new Lease(name, value.substring(colon + 1), Long.parseLong(value.substring(0, colon))));
  }

  private static String ttlMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms but was " + ttl);
    }
    return Long.toString(ttl.toMillis());
  }

  private static void closeQuietly(StatefulConnection<?, ?> c) {
    try {
      c.close();
    } catch (RuntimeException e) {
      log.debug("closing a Redis connection failed: {}", e.toString());
    }
  }

  private static void shutdown(AbstractRedisClient client, ClientResources resources) {
    try {
      if (client != null) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    } catch (RuntimeException e) {
      log.debug("Redis client shutdown failed: {}", e.toString());
    }
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  // ---------------------------------------------------------------- configuration

  static RedisURI uri(String address, RedisStoreConfig c) {
    String host;
    int port = RedisURI.DEFAULT_REDIS_PORT;
    String a = address.trim();
    if (a.startsWith("[")) {
      int end = a.indexOf(']');
      if (end < 0) {
        throw new IllegalArgumentException("bad Redis address '" + address + "'");
      }
      host = a.substring(1, end);
      if (a.length() > end + 1) {
        if (a.charAt(end + 1) != ':') {
          throw new IllegalArgumentException("bad Redis address '" + address + "'");
        }
        port = parsePort(a.substring(end + 2), address);
      }
    } else {
      int colon = a.lastIndexOf(':');
      if (colon >= 0 && a.indexOf(':') != colon) {
        throw new IllegalArgumentException("IPv6 Redis address must be bracketed: '[" + a + "]:port'");
      }
      host = colon < 0 ? a : a.substring(0, colon);
      if (colon >= 0) {
        port = parsePort(a.substring(colon + 1), address);
      }
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException("bad Redis address '" + address + "': no host");
    }
    RedisURI.Builder b = RedisURI.builder().withHost(host).withPort(port).withTimeout(c.commandTimeout());
    if (!c.cluster()) {
      b.withDatabase(c.database());
    } else if (c.database() != 0) {
      throw new IllegalArgumentException("Redis Cluster has only database 0");
    }
    if (c.password() != null) {
      if (c.username() != null) {
        b.withAuthentication(c.username(), c.password());
      } else {
        b.withPassword(c.password().toCharArray());
      }
    }
    if (c.tls()) {
      b.withSsl(true).withVerifyPeer(SslVerifyMode.valueOf(c.tlsVerify().name()));
    }
    if (c.clientName() != null) {
      b.withClientName(c.clientName());
    }
    return b.build();
  }

  private static int parsePort(String s, String address) {
    try {
      int port = Integer.parseInt(s);
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return port;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad port in Redis address '" + address + "'");
    }
  }

  private static ClientOptions clientOptions(RedisStoreConfig c) {
    ClientOptions.Builder b = ClientOptions.builder();
    common(b, c);
    return b.build();
  }

  private static ClusterClientOptions clusterOptions(RedisStoreConfig c) {
    ClusterClientOptions.Builder b = ClusterClientOptions.builder()
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enablePeriodicRefresh(Duration.ofSeconds(15))
            .enableAdaptiveRefreshTrigger(RefreshTrigger.MOVED_REDIRECT, RefreshTrigger.ASK_REDIRECT,
                RefreshTrigger.PERSISTENT_RECONNECTS, RefreshTrigger.UNCOVERED_SLOT, RefreshTrigger.UNKNOWN_NODE)
            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(5))
            .build())
        .maxRedirects(5);
    common(b, c);
    return b.build();
  }

  private static void common(ClientOptions.Builder b, RedisStoreConfig c) {
    b.autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .requestQueueSize(c.requestQueueSize())
        .pingBeforeActivateConnection(true)
        .socketOptions(SocketOptions.builder().connectTimeout(c.connectTimeout()).keepAlive(true).build())
        .timeoutOptions(TimeoutOptions.builder().fixedTimeout(c.commandTimeout()).build());
    if (c.tls()) {
      b.sslOptions(sslOptions(c));
    }
  }

  private static SslOptions sslOptions(RedisStoreConfig c) {
    SslOptions.Builder b = SslOptions.builder().jdkSslProvider();
    if (!c.caPemFiles().isEmpty()) {
      ByteArrayOutputStream pem = new ByteArrayOutputStream();
      for (Path file : c.caPemFiles()) {
        try {
          pem.write(Files.readAllBytes(file));
          pem.write('\n');
        } catch (IOException e) {
          throw new IllegalArgumentException("cannot read CA file " + file + ": " + e, e);
        }
      }
      byte[] bytes = pem.toByteArray();
      b.trustManager(() -> new ByteArrayInputStream(bytes));
    }
    return b.build();
  }
}

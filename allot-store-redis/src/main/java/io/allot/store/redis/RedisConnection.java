package io.allot.store.redis;

import io.allot.store.StoreUnavailableException;
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
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection every role of a {@link RedisStore} shares: one Lettuce client (standalone or Cluster) with one
 * multiplexed command connection, and the factory of the pub/sub connection. Runs commands and scripts and turns
 * Lettuce failures into the store's exceptions: {@link StoreUnavailableException} for "not now" (disconnected,
 * timeout, server loading or busy, queue full), {@link IllegalStateException} for a refused command (such as
 * {@code WRONGTYPE}) and for any call after {@link #close}.
 *
 * <p>Thread-safe: the Lettuce connection is; {@code closed} is atomic.
 */
final class RedisConnection {
  private static final Logger log = LoggerFactory.getLogger(RedisConnection.class);

  /** Error replies that mean "not now" rather than "wrong request". */
  private static final List<String> TRANSIENT_ERRORS =
      List.of("LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS", "NOAUTH");

  private final RedisStoreConfig config;
  private final String where;
  private final ClientResources resources;
  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterCommands<String, String> redis;
  private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSubFactory;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Whether {@code client} is the application's: {@link #close} then leaves it (and its resources) open. */
  private final boolean borrowed;

  /**
   * Connects (eagerly) and preloads the scripts.
   *
   * @throws IllegalArgumentException if a setting is unusable (e.g. an unreadable CA file)
   * @throws StoreUnavailableException if no server answers
   */
  RedisConnection(RedisStoreConfig config) {
    this.config = config;
    this.where = config.describe();
    List<RedisURI> uris = config.addresses().stream().map(a -> LettuceClients.uri(a, config)).toList();
    // built before connecting, so a bad setting (unreadable CA file) is reported as such, not as "unavailable"
    ClientOptions options = LettuceClients.options(config);
    this.resources = LettuceClients.resources(config);
    AbstractRedisClient c = null;
    try {
      if (config.cluster()) {
        RedisClusterClient cc = RedisClusterClient.create(resources, uris);
        c = cc;
        cc.setOptions((ClusterClientOptions) options);
        StatefulRedisClusterConnection<String, String> conn = cc.connect(Utf8Codec.UTF8);
        this.connection = conn;
        this.redis = conn.sync();
        this.pubSubFactory = () -> cc.connectPubSub(Utf8Codec.UTF8);
      } else {
        RedisClient rc = RedisClient.create(resources, uris.get(0));
        c = rc;
        rc.setOptions(options);
        var conn = rc.connect(Utf8Codec.UTF8);
        this.connection = conn;
        this.redis = conn.sync();
        this.pubSubFactory = () -> rc.connectPubSub(Utf8Codec.UTF8);
      }
    } catch (RuntimeException e) {
      shutdown(c, resources);
      throw new StoreUnavailableException("cannot connect to " + where + ": " + rootMessage(e), e);
    }
    this.client = c;
    this.borrowed = false;
    loadScripts();
    log.info("connected to {}", where);
  }

  /**
   * Connects (eagerly) through the application's {@code client} to {@code uri}, with the client's options and
   * resources, and preloads the scripts; {@link #close} closes this store's connections, never the client.
   *
   * @throws StoreUnavailableException if the server does not answer
   */
  RedisConnection(RedisStoreConfig config, RedisClient client, RedisURI uri) {
    this.config = config;
    this.where = config.describe();
    this.resources = client.getResources();
    this.client = client;
    this.borrowed = true;
    try {
      var conn = client.connect(Utf8Codec.UTF8, uri);
      this.connection = conn;
      this.redis = conn.sync();
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("cannot connect to " + where + ": " + rootMessage(e), e);
    }
    this.pubSubFactory = () -> client.connectPubSub(Utf8Codec.UTF8, uri);
    loadScripts();
    log.info("connected to {} through the application's RedisClient", where);
  }

  RedisStoreConfig config() {
    return config;
  }

  /** Where the store is, for messages (never the password). */
  String where() {
    return where;
  }

  /** Whether the command connection is up now (it reconnects by itself). */
  boolean isOpen() {
    return connection.isOpen();
  }

  /** @throws IllegalStateException if closed */
  void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("RedisStore for " + where + " is closed");
    }
  }

  /** Runs {@code body} on the command connection; {@code op} describes it for messages. */
  <T> T call(String op, Function<RedisClusterCommands<String, String>, T> body) {
    checkOpen();
    try {
      return body.apply(redis);
    } catch (RedisException e) {
      throw translate(op, e);
    }
  }

  /** Runs {@code script} with EVALSHA, falling back to EVAL when the server does not have it cached. */
  <T> T run(String op, Script script, ScriptOutputType type, String[] keys, String... args) {
    return call(op, r -> {
      try {
        return r.evalsha(script.sha(), type, keys, args);
      } catch (RedisNoScriptException e) {
        log.debug("script {} not cached on {}: running it with EVAL", script.name(), where);
        return r.eval(script.text(), type, keys, args);
      }
    });
  }

  /** Runs a script that answers 1 (yes) or 0 (no). */
  boolean runForFlag(String op, Script script, String[] keys, String... args) {
    Long result = run(op, script, ScriptOutputType.INTEGER, keys, args);
    return result != null && result == 1L;
  }

  /**
   * Runs {@code body} with the address and the commands of every node that holds data: the server, or each master
   * of a Cluster (as the client knows the topology now); returns the results in node order.
   */
  <T> List<T> onEveryNode(String op, BiFunction<String, RedisClusterCommands<String, String>, T> body) {
    return call(op, r -> {
      List<T> out = new ArrayList<>();
      if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
        for (RedisClusterNode node : cluster.getPartitions()) {
          if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
            String address = new RedisAddress(node.getUri().getHost(), node.getUri().getPort()).toString();
            out.add(body.apply(address, cluster.getConnection(node.getNodeId()).sync()));
          }
        }
      } else {
        out.add(body.apply(config.addresses().get(0), r));
      }
      return out;
    });
  }

  /** Opens a pub/sub connection (Cluster: one that follows the topology). */
  StatefulRedisPubSubConnection<String, String> connectPubSub() {
    return call("connect for pub/sub", r -> pubSubFactory.get());
  }

  /**
   * {@code keys}, after checking in Cluster mode that they all hash to the slot of {@code anchor} (one script may
   * only touch keys of one slot).
   *
   * @throws IllegalArgumentException naming the key that does not, and {@code what} was tried
   */
  String[] sameSlot(String what, String anchor, String... keys) {
    if (config.cluster()) {
      RedisKeys.checkSameSlot(what, anchor, keys);
    }
    return keys;
  }

  /**
   * Reads the hash {@code key} of records and parses each field with {@code parser}; a record it cannot parse (null)
   * is logged and left out. {@code what} names the records in messages.
   */
  <T> Map<String, T> records(String what, String key, BiFunction<String, String, T> parser) {
    Map<String, String> raw = call("HGETALL " + what + " " + key, r -> r.hgetall(key));
    Map<String, T> out = new LinkedHashMap<>();
    raw.forEach((field, value) -> {
      T parsed = parser.apply(field, value);
      if (parsed == null) {
        log.warn("ignoring malformed {} '{}' of '{}' in {}", what, value, field, key);
      } else {
        out.put(field, parsed);
      }
    });
    return out;
  }

  /**
   * Closes, once: runs {@code first} (what must stop before the connections go), then closes the connections and
   * the client. Later calls fail with {@link IllegalStateException}.
   */
  void close(Runnable first) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      first.run();
    } finally {
      closeQuietly(connection);
      if (!borrowed) {
        shutdown(client, resources);
      }
      log.info("closed connection to {}", where);
    }
  }

  private void loadScripts() {
    try {
      for (Script s : Scripts.ALL) {
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

  /** Closes a Lettuce connection, logging (not throwing) a failure. */
  static void closeQuietly(StatefulConnection<?, ?> c) {
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
}

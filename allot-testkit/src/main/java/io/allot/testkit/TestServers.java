package io.allot.testkit;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * THE rule every store test uses to find its server, so that a developer with local servers, a machine with only
 * the binaries, and CI all run the same tests the same way:
 *
 * <ol>
 *   <li>{@code $ALLOT_TEST_REDIS} / {@code $ALLOT_TEST_POSTGRES} when set: a store URI ({@code host:port} is read
 *       as {@code redis://host:port}), used as given;</li>
 *   <li>else the local server: Redis at 127.0.0.1:6379 if it answers PING, PostgreSQL at 127.0.0.1:5432 if it lets
 *       user {@code postgres} into database {@code test} without a password;</li>
 *   <li>else one throwaway server per JVM ({@link RedisServer}, {@link PostgresServer}), started on first use and
 *       stopped by a shutdown hook;</li>
 *   <li>else fail with an {@link IllegalStateException} that says what was tried and why each step failed.</li>
 * </ol>
 *
 * {@link #redisClusterUri()} is always a throwaway {@link RedisCluster} (3 masters), shared per JVM. The servers are
 * shared by every test in the JVM: a test works under its own random key prefix, schema or pool. A test that must
 * break its server (kill, pause, restart) starts its own {@link RedisServer} or {@link PostgresServer} instead.
 */
public final class TestServers {
  /** The local Redis the rule tries. */
  public static final String LOCAL_REDIS = "redis://127.0.0.1:6379";
  /** The local PostgreSQL the rule tries. */
  public static final String LOCAL_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test";

  private static final Logger log = LoggerFactory.getLogger(TestServers.class);
  /**
   * The stores' default lost-state guard: a throwaway Redis is handed out once it has run this long, or the first
   * claims of every new pool would wait for it (see {@link RedisServer#awaitUptime}).
   */
  static final Duration STORE_GUARD = Duration.ofSeconds(3);

  /** Found once per JVM (an answer or why not); guarded by the class. */
  private static Found redis;
  private static Found postgres;
  private static Found cluster;

  private TestServers() {}

  /**
   * The Redis URI for tests, by the rule above ({@code redis://127.0.0.1:6379} or a throwaway's).
   *
   * @throws IllegalStateException if there is none, saying what was tried
   */
  public static synchronized String redisUri() {
    if (redis == null) {
      redis = findRedis();
    }
    return redis.get();
  }

  /**
   * The PostgreSQL URI for tests, by the rule above ({@code postgresql://postgres@127.0.0.1:5432/test} or a
   * throwaway's).
   *
   * @throws IllegalStateException if there is none, saying what was tried
   */
  public static synchronized String postgresUri() {
    if (postgres == null) {
      postgres = findPostgres();
    }
    return postgres.get();
  }

  /**
   * The URI of a throwaway Redis Cluster of 3 masters shared by this JVM:
   * {@code redis-cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3}.
   *
   * @throws IllegalStateException if it cannot be started, with the reason
   */
  public static synchronized String redisClusterUri() {
    if (cluster == null) {
      try {
        RedisCluster c = stopAtExit(RedisCluster.start());
        c.nodes().forEach(n -> n.awaitUptime(STORE_GUARD));
        cluster = Found.uri(c.uri());
      } catch (RuntimeException e) {
        cluster = Found.none("no Redis Cluster for the tests: starting a throwaway one failed: " + e.getMessage());
      }
    }
    return cluster.get();
  }

  private static Found findRedis() {
    return findRedis(env("ALLOT_TEST_REDIS"), 6379, () -> stopAtExit(RedisServer.start()).awaitUptime(STORE_GUARD));
  }

  private static Found findPostgres() {
    // durable (fsync on): a server that may lose commits makes the store wait its lost-state guard in new pools
    return findPostgres(env("ALLOT_TEST_POSTGRES"), 5432,
        () -> stopAtExit(PostgresServer.builder().setting("fsync", "on").start()));
  }

  /** The rule for Redis, with what it depends on as parameters (for its test). */
  static Found findRedis(Optional<String> configured, int localPort, Supplier<RedisServer> throwaway) {
    if (configured.isPresent()) {
      String uri = configured.get().contains("://") ? configured.get() : "redis://" + configured.get();
      log.info("tests use Redis {} ($ALLOT_TEST_REDIS)", uri);
      return Found.uri(uri);
    }
    String local = "redis://127.0.0.1:" + localPort;
    Optional<String> refusal = redisRefusal(localPort);
    if (refusal.isEmpty()) {
      return Found.uri(local);
    }
    String tried = "$ALLOT_TEST_REDIS is not set; " + local + " does not answer PING (" + refusal.get() + ")";
    try {
      RedisServer server = throwaway.get();
      log.info("tests use a throwaway Redis {} ({})", server.uri(), tried);
      return Found.uri(server.uri());
    } catch (RuntimeException e) {
      return Found.none("no Redis for the tests: " + tried + "; starting a throwaway redis-server failed: "
          + e.getMessage());
    }
  }

  /** The rule for PostgreSQL, with what it depends on as parameters (for its test). */
  static Found findPostgres(Optional<String> configured, int localPort, Supplier<PostgresServer> throwaway) {
    if (configured.isPresent()) {
      log.info("tests use PostgreSQL {} ($ALLOT_TEST_POSTGRES)", configured.get());
      return Found.uri(configured.get());
    }
    String local = "postgresql://postgres@127.0.0.1:" + localPort + "/test";
    Optional<String> refusal = PgProbe.refusal("127.0.0.1", localPort, "postgres", "test", Duration.ofSeconds(2));
    if (refusal.isEmpty()) {
      return Found.uri(local);
    }
    String tried = "$ALLOT_TEST_POSTGRES is not set; " + local + " does not let postgres in without a password ("
        + refusal.get() + ")";
    try {
      PostgresServer server = throwaway.get();
      log.info("tests use a throwaway PostgreSQL {} ({})", server.uri(), tried);
      return Found.uri(server.uri());
    } catch (RuntimeException e) {
      return Found.none("no PostgreSQL for the tests: " + tried + "; starting a throwaway cluster failed: "
          + e.getMessage());
    }
  }

  /** Empty if 127.0.0.1:{@code port} answers PING with PONG, else why not. */
  private static Optional<String> redisRefusal(int port) {
    try (Resp r = Resp.connect("127.0.0.1", port, null, null, Duration.ofSeconds(2))) {
      String reply = r.call("PING");
      return "PONG".equals(reply) ? Optional.empty() : Optional.of("it answered '" + reply + "'");
    } catch (IOException e) {
      return Optional.of(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private static Optional<String> env(String name) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }

  private static <T extends AutoCloseable> T stopAtExit(T server) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (Exception e) {
        // exiting anyway
      }
    }, "allot-testkit-stop-" + server));
    return server;
  }

  /** A URI found, or why there is none (kept, so every later call fails the same way at once). */
  record Found(String uri, String failure) {
    static Found uri(String uri) {
      return new Found(uri, null);
    }

    static Found none(String failure) {
      return new Found(null, failure);
    }

    String get() {
      if (uri == null) {
        throw new IllegalStateException(failure);
      }
      return uri;
    }
  }
}

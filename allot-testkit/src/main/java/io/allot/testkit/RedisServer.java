package io.allot.testkit;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway {@code redis-server} process on 127.0.0.1, a free port and its own temporary directory, for tests that
 * need a Redis they may break:
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
 *   Store store = Stores.open(redis.uri());      // redis://127.0.0.1:PORT
 *   redis.pause();  ...  redis.resume();         // SIGSTOP / SIGCONT: connections hang, as in a partition
 *   redis.kill();   ...  redis.restart();        // SIGKILL, then the same port and directory again
 * }
 * }</pre>
 *
 * Every start waits until the server answers PING (with AUTH when it has a password, over TLS when it has
 * certificates), never a fixed time. Persistence is off unless asked for ({@link Builder#appendOnly},
 * {@link Builder#save}), so a restart loses the data unless the builder kept it. Only the process started here is
 * ever signalled, by its pid. The binary is {@code $ALLOT_REDIS_SERVER} or {@code redis-server} on the PATH.
 * Thread-safe; {@link #close()} kills the process and deletes the directory.
 */
public final class RedisServer extends ThrowawayServer {
  private static final Logger log = LoggerFactory.getLogger(RedisServer.class);
  private static final int PORT_ATTEMPTS = 3;

  private final Builder config;
  private final SSLSocketFactory tlsSockets;
  /** The running (or paused, or dead) process; guarded by {@code this}. */
  private Process process;
  /** Whether the process was stopped with SIGSTOP and not continued; guarded by {@code this}. */
  private boolean paused;

  private RedisServer(Builder config, int port, Path dir) {
    super(dir, port);
    this.config = config;
    this.tlsSockets = config.tls == null ? null : config.tls.clientSocketFactory();
  }

  /** Starts a server with the defaults (no persistence, no password, no TLS). */
  public static RedisServer start() {
    return builder().start();
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Whether the default binary ({@code $ALLOT_REDIS_SERVER} or {@code redis-server}) runs here. */
  public static boolean available() {
    return Exec.succeeds(List.of(Builder.defaultBinary(), "--version"));
  }

  /**
   * The store URI: {@code redis://127.0.0.1:PORT}, {@code rediss://} with TLS, with {@code :PASSWORD@} (percent
   * encoded) when the server has a password.
   */
  public String uri() {
    return uriAt(HOST);
  }

  /**
   * {@link #uri()} with {@code address} in place of 127.0.0.1: one of the addresses the server also listens on
   * ({@link Builder#alsoListenOn}), for a client in another network namespace.
   *
   * @throws IllegalArgumentException if the server does not listen on {@code address}
   */
  public String uriAt(String address) {
    String auth = config.password == null ? "" : ":" + percentEncode(config.password) + "@";
    return (config.tls == null ? "redis://" : "rediss://") + auth + listening(address, config.alsoListenOn) + ":"
        + port();
  }

  /** The password ({@code requirepass}), if any. */
  public Optional<String> password() {
    return Optional.ofNullable(config.password);
  }

  /** The certificates the server uses, if it speaks TLS only. */
  public Optional<TlsFiles> tls() {
    return Optional.ofNullable(config.tls);
  }

  /** The pid of the current process. */
  public synchronized long pid() {
    return process.pid();
  }

  /** Whether the process is alive (it may be paused). */
  public synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  /** Whether the process is paused (SIGSTOP). */
  public synchronized boolean paused() {
    return paused;
  }

  /** Whether the server answers PING within a second now. */
  public boolean answers() {
    try (Resp r = connect(Duration.ofSeconds(1))) {
      return "PONG".equals(r.call("PING"));
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Sends one command over a new connection (raw RESP, no redis-cli needed) and returns the reply as text: strings
   * and integers as they are, arrays one element a line, nil as null.
   *
   * @throws IllegalStateException if the server cannot be reached or replies with an error (the message has it)
   */
  public String command(String... args) {
    try (Resp r = connect(Duration.ofSeconds(10))) {
      return r.call(args);
    } catch (IOException e) {
      throw new IllegalStateException("redis " + address() + ": " + String.join(" ", args) + ": " + e.getMessage(), e);
    }
  }

  /** How long this server process has run ({@code INFO server} {@code uptime_in_seconds}). */
  public Duration uptime() {
    String info = command("INFO", "server");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("uptime_in_seconds:")) {
        return Duration.ofSeconds(Long.parseLong(line.substring("uptime_in_seconds:".length()).trim()));
      }
    }
    throw new IllegalStateException("redis " + address() + ": INFO server has no uptime_in_seconds");
  }

  /**
   * Waits until the server has run for at least {@code age}. A store refuses claims in a new pool on a server younger
   * than its lost-state guard (3 s by default; it cannot tell a new pool from one a restart wiped out), so a server
   * shared by tests that claim at once is handed out only when old enough.
   */
  public RedisServer awaitUptime(Duration age) {
    Poll.await("redis " + address() + " up for " + age, () -> uptime().compareTo(age) >= 0,
        age.plusSeconds(30), () -> "uptime " + uptime());
    return this;
  }

  /**
   * Runs {@code redis-cli} against this server (with its password and TLS settings) and returns what it printed,
   * whatever its exit status. For what {@link #command} cannot do ({@code --cluster}, {@code -c}).
   */
  public String cli(String... args) {
    List<String> cmd = new ArrayList<>(List.of("redis-cli", "-h", HOST, "-p", Integer.toString(port())));
    if (config.tls != null) {
      cmd.addAll(List.of("--tls", "--cacert", config.tls.caCert().toString()));
    }
    if (config.password != null) {
      cmd.addAll(List.of("-a", config.password, "--no-auth-warning"));
    }
    cmd.addAll(List.of(args));
    return Exec.run(cmd, Duration.ofSeconds(60)).output();
  }

  /** SIGKILL, as a crash would (works on a paused server too); returns once the process is gone. */
  @Override
  public synchronized void kill() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      waitForExit(Duration.ofSeconds(30));
      log.info("redis-server {} killed", address());
    }
    paused = false;
  }

  /** SIGSTOP: the server keeps its connections and port open but answers nothing. */
  public synchronized void pause() {
    requireAlive("pause");
    Signals.send(process, Signals.Signal.STOP);
    paused = true;
  }

  /** SIGCONT after {@link #pause()}; nothing if the server is not paused. */
  public synchronized void resume() {
    if (paused && process.isAlive()) {
      Signals.send(process, Signals.Signal.CONT);
    }
    paused = false;
  }

  /**
   * {@code SHUTDOWN}: the server saves what its persistence settings say (an append-only file is flushed) and
   * exits; returns once the process is gone. Resumes a paused server first; nothing if it is not running.
   */
  public void shutdown() {
    shutdown(false);
  }

  /** {@code SHUTDOWN NOSAVE}: exits without saving; returns once the process is gone. */
  public void shutdownNoSave() {
    shutdown(true);
  }

  private synchronized void shutdown(boolean noSave) {
    if (process == null || !process.isAlive()) {
      return;
    }
    resume();
    try (Resp r = connect(Duration.ofSeconds(30))) {
      r.call(noSave ? new String[] {"SHUTDOWN", "NOSAVE"} : new String[] {"SHUTDOWN"});
      throw new IllegalStateException("redis-server " + address() + " answered SHUTDOWN instead of exiting");
    } catch (EOFException | SocketException e) {
      // the server closed the connection: it is exiting
    } catch (IOException e) {
      if (process.isAlive()) {
        throw new IllegalStateException("redis-server " + address() + ": SHUTDOWN failed: " + e.getMessage()
            + "; log: " + log(), e);
      }
    }
    waitForExit(Duration.ofSeconds(30));
    if (process.isAlive()) {
      throw new IllegalStateException("redis-server " + address() + " did not exit after SHUTDOWN: " + log());
    }
    log.info("redis-server {} shut down{}", address(), noSave ? " without saving" : "");
  }

  @Override
  String kind() {
    return "redis-server";
  }

  @Override
  Path logFile() {
    return dir().resolve("redis.log");
  }

  @Override
  public String toString() {
    return "RedisServer[" + address() + (config.tls == null ? "" : ", tls") + "]";
  }

  @Override
  synchronized void launch() {
    List<String> cmd = new ArrayList<>(List.of(config.binary, "--bind", HOST));
    cmd.addAll(config.alsoListenOn);
    cmd.addAll(List.of("--dir", dir().toString(), "--daemonize", "no", "--save", config.save,
        "--appendonly", config.appendOnly ? "yes" : "no"));
    if (config.appendFsync != null) {
      cmd.addAll(List.of("--appendfsync", config.appendFsync));
    }
    if (config.tls == null) {
      cmd.addAll(List.of("--port", Integer.toString(port())));
    } else {
      cmd.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port()),
          "--tls-cert-file", config.tls.serverCert().toString(), "--tls-key-file", config.tls.serverKey().toString(),
          "--tls-ca-cert-file", config.tls.caCert().toString(), "--tls-auth-clients", "no"));
    }
    if (config.password != null) {
      cmd.addAll(List.of("--requirepass", config.password));
    }
    cmd.addAll(config.args);
    try {
      process = new ProcessBuilder(cmd)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
          .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + config.binary + " (is Redis installed? $ALLOT_REDIS_SERVER "
          + "names another binary): " + e.getMessage(), e);
    }
    paused = false;
    Process started = process;
    boolean up = Poll.until(() -> !started.isAlive() || answers(), config.startTimeout, Duration.ofMillis(20));
    if (!started.isAlive()) {
      throw new IllegalStateException("redis-server on " + address() + " exited with " + started.exitValue()
          + ": " + log());
    }
    if (!up) {
      kill();
      throw new IllegalStateException("redis-server on " + address() + " did not answer PING within "
          + config.startTimeout.toMillis() + " ms: " + log());
    }
  }

  private Resp connect(Duration timeout) throws IOException {
    return Resp.connect(HOST, port(), tlsSockets, config.password, timeout);
  }

  private void waitForExit(Duration timeout) {
    try {
      process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void requireAlive(String what) {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("cannot " + what + " redis-server " + address() + ": it is not running");
    }
  }

  /** RFC 3986 percent-encoding of everything but unreserved characters, for the user info of a URI. */
  static String percentEncode(String s) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  /** Settings of a {@link RedisServer}; {@link #start()} starts one. Not thread-safe. */
  public static final class Builder {
    private static final Set<String> FSYNC = Set.of("always", "everysec", "no");

    private String binary = defaultBinary();
    private int port;
    private boolean appendOnly;
    private String appendFsync;
    private String save = "";
    private String password;
    private TlsFiles tls;
    private List<String> args = List.of();
    private List<String> alsoListenOn = List.of();
    private Duration startTimeout = Duration.ofSeconds(20);

    private Builder() {}

    static String defaultBinary() {
      String env = System.getenv("ALLOT_REDIS_SERVER");
      return env == null || env.isBlank() ? "redis-server" : env.trim();
    }

    /** The redis-server binary; default {@code $ALLOT_REDIS_SERVER} or {@code redis-server}. */
    public Builder binary(String binary) {
      if (binary == null || binary.isBlank()) {
        throw new IllegalArgumentException("binary must name a redis-server executable but was '" + binary + "'");
      }
      this.binary = binary;
      return this;
    }

    /** The port; default 0, a free one (tried again with another if it is taken meanwhile). */
    public Builder port(int port) {
      this.port = Checks.port(port);
      return this;
    }

    /** {@code appendonly yes|no}; default no. */
    public Builder appendOnly(boolean appendOnly) {
      this.appendOnly = appendOnly;
      return this;
    }

    /** {@code appendfsync}: {@code always}, {@code everysec} or {@code no}; default the server's (everysec). */
    public Builder appendFsync(String appendFsync) {
      if (appendFsync == null || !FSYNC.contains(appendFsync)) {
        throw new IllegalArgumentException("appendFsync must be one of " + FSYNC + " but was '" + appendFsync + "'");
      }
      this.appendFsync = appendFsync;
      return this;
    }

    /** {@code save} points, e.g. {@code "900 1"}; default {@code ""} (no snapshots). */
    public Builder save(String save) {
      this.save = Objects.requireNonNull(save, "save");
      return this;
    }

    /** {@code requirepass}; default none. */
    public Builder password(String password) {
      if (password == null || password.isEmpty()) {
        throw new IllegalArgumentException("password must not be empty (leave it unset for none)");
      }
      this.password = password;
      return this;
    }

    /** Speaks TLS only, on the port, with these certificates ({@code tls-auth-clients no}); default plain text. */
    public Builder tls(TlsFiles tls) {
      this.tls = Objects.requireNonNull(tls, "tls");
      return this;
    }

    /**
     * More command-line configuration, appended last (so it wins), e.g. {@code "--notify-keyspace-events", "Kl"}.
     */
    public Builder args(String... args) {
      this.args = Checks.args(args);
      return this;
    }

    /**
     * Also listen on {@code address} (an IPv4 address of this host, e.g. the host's end of a {@link NetNamespace}'s
     * link), besides 127.0.0.1; repeatable. Redis's protected mode admits clients from other addresses only when the
     * server has a {@link #password}.
     */
    public Builder alsoListenOn(String address) {
      List<String> all = new ArrayList<>(alsoListenOn);
      all.add(Checks.ipv4("address", address));
      this.alsoListenOn = List.copyOf(all);
      return this;
    }

    /** How long a start may take until PING answers; default 20 s. */
    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = Checks.atLeast("startTimeout", startTimeout, Duration.ofMillis(1));
      return this;
    }

    /**
     * Starts the server and returns once it answers PING.
     *
     * @throws IllegalStateException if it cannot be started, with the reason and its log
     */
    public RedisServer start() {
      Builder frozen = copy();
      for (int attempt = 1; ; attempt++) {
        int p = port != 0 ? port : Ports.free();
        RedisServer server = new RedisServer(frozen, p, Dirs.temp("allot-redis-" + p + "-"));
        try {
          server.launch();
          log.info("redis-server started on {} (dir {})", server.address(), server.dir());
          return server;
        } catch (RuntimeException e) {
          String output = server.log();
          server.close();
          if (port == 0 && attempt < PORT_ATTEMPTS && output.contains("Address already in use")) {
            continue; // the free port was taken meanwhile
          }
          throw e;
        }
      }
    }

    private Builder copy() {
      Builder b = new Builder();
      b.binary = binary;
      b.port = port;
      b.appendOnly = appendOnly;
      b.appendFsync = appendFsync;
      b.save = save;
      b.password = password;
      b.tls = tls;
      b.args = args;
      b.alsoListenOn = alsoListenOn;
      b.startTimeout = startTimeout;
      return b;
    }
  }
}

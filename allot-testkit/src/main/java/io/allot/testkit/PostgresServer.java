package io.allot.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway PostgreSQL cluster: {@code initdb} into a temporary directory (trust authentication, user
 * {@code postgres}, UTF8, no locale), {@code pg_ctl start} on 127.0.0.1 and a free port, {@code fsync=off}:
 *
 * <pre>{@code
 * try (PostgresServer pg = PostgresServer.start()) {
 *   Store store = Stores.open(pg.uri());   // postgresql://postgres@127.0.0.1:PORT/postgres
 *   pg.kill(); ... pg.restart();           // every server process SIGKILLed, then WAL replay on the same port
 * }
 * }</pre>
 *
 * The binaries come from the newest {@code /usr/lib/postgresql/<version>/bin}, else the PATH. PostgreSQL refuses to
 * run as root, so as root every server command runs through {@code runuser -u postgres --} and the directory is
 * given to that user. Waits are on conditions ({@code pg_ctl -w}, processes gone), never fixed times. Thread-safe;
 * {@link #close()} kills the server and deletes the directory.
 */
public final class PostgresServer extends ThrowawayServer {
  /** The superuser, trusted without a password. */
  public static final String USER = "postgres";

  private static final Logger log = LoggerFactory.getLogger(PostgresServer.class);
  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));
  private static final int PORT_ATTEMPTS = 3;

  private final Builder config;
  private final Path bin;
  private final Path data;
  /** Whether the server processes were stopped with SIGSTOP; guarded by {@code this}. */
  private boolean paused;

  private PostgresServer(Builder config, Path bin, Path dir, int port) {
    super(dir, port);
    this.config = config;
    this.bin = bin;
    this.data = dir.resolve("data");
  }

  /** Starts a cluster with the defaults. */
  public static PostgresServer start() {
    return builder().start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether PostgreSQL server binaries ({@code initdb}, {@code pg_ctl}) are found here. */
  public static boolean available() {
    return findBin().isPresent();
  }

  /** {@code postgresql://postgres@127.0.0.1:PORT/postgres}. */
  public String uri() {
    return uri("postgres");
  }

  /** {@code postgresql://postgres@127.0.0.1:PORT/DATABASE}. */
  public String uri(String database) {
    return "postgresql://" + USER + "@" + address() + "/" + Objects.requireNonNull(database, "database");
  }

  /**
   * {@code postgresql://postgres@ADDRESS:PORT/postgres}: {@link #uri()} on one of the addresses the server also
   * listens on ({@link Builder#alsoListenOn}), for a client in another network namespace (which
   * {@link Builder#trustClients} must admit).
   *
   * @throws IllegalArgumentException if the server does not listen on {@code address}
   */
  public String uriAt(String address) {
    return "postgresql://" + USER + "@" + listening(address, config.alsoListenOn) + ":" + port() + "/postgres";
  }

  /** The postmaster's pid, from {@code postmaster.pid}; empty if there is no such file. */
  public Optional<Long> pid() {
    try {
      List<String> lines = Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.UTF_8);
      return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether the postmaster runs (it may be paused). */
  public boolean alive() {
    return pid().map(PostgresServer::running).orElse(false);
  }

  /** Whether the server processes are paused (SIGSTOP). */
  public synchronized boolean paused() {
    return paused;
  }

  /** Whether the server lets {@code postgres} into database {@code postgres} within a second now. */
  public boolean answers() {
    return PgProbe.refusal(HOST, port(), USER, "postgres", Duration.ofSeconds(1)).isEmpty();
  }

  /**
   * Runs {@code sql} with psql ({@code -X -tA -v ON_ERROR_STOP=1}) in database {@code postgres} and returns what it
   * printed: one row a line, columns separated by {@code |}.
   *
   * @throws IllegalStateException if psql fails, with its output
   */
  public String psql(String sql) {
    return Exec.check(List.of(bin.resolve("psql").toString(), "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-h", HOST,
        "-p", Integer.toString(port()), "-U", USER, "-d", "postgres", "-c", sql), Duration.ofSeconds(60));
  }

  /**
   * SIGKILL to the postmaster and every server process at once, as a crash would (committed data survives: WAL
   * replay at the next start); returns once they are all gone. Nothing if the server is not running.
   */
  @Override
  public synchronized void kill() {
    Optional<Long> pid = pid().filter(PostgresServer::running);
    if (pid.isPresent()) {
      List<Long> all = stopAll(pid.get());
      all.forEach(p -> signal(p, Signals.Signal.KILL));
      Poll.await("the processes of PostgreSQL " + address() + " are dead",
          () -> all.stream().noneMatch(PostgresServer::running), Duration.ofSeconds(30), null);
      // a dead process stays a zombie until its new parent (init) reaps it, and the next postmaster takes a zombie
      // for a live one: wait for the reaping, or take the stale lock file away if the reaper is slow
      if (!Poll.until(() -> all.stream().noneMatch(PostgresServer::exists), Duration.ofSeconds(5),
          Duration.ofMillis(20))) {
        try {
          Files.deleteIfExists(data.resolve("postmaster.pid"));
        } catch (IOException e) {
          throw new IllegalStateException("cannot remove the stale " + data.resolve("postmaster.pid"), e);
        }
      }
      log.info("PostgreSQL {} killed", address());
    }
    paused = false;
  }

  /** SIGSTOP to every server process: connections stay open but nothing answers, new ones hang. */
  public synchronized void pause() {
    long pid = pid().filter(PostgresServer::running).orElseThrow(
        () -> new IllegalStateException("cannot pause PostgreSQL " + address() + ": it is not running"));
    stopAll(pid);
    paused = true;
  }

  /** SIGCONT after {@link #pause()}; nothing if not paused. */
  public synchronized void resume() {
    if (paused) {
      pid().filter(PostgresServer::running).ifPresent(pid -> {
        List<Long> all = withChildren(pid);
        for (int i = all.size() - 1; i >= 0; i--) { // the postmaster last
          signal(all.get(i), Signals.Signal.CONT);
        }
      });
    }
    paused = false;
  }

  /** {@code pg_ctl stop -m fast}: a clean shutdown (a paused server is resumed first). Nothing if not running. */
  public synchronized void shutdown() {
    resume();
    if (alive()) {
      pgCtl("-m", "fast", "-w", "-t", "60", "stop");
      log.info("PostgreSQL {} shut down", address());
    }
  }

  @Override
  String kind() {
    return "PostgreSQL";
  }

  @Override
  Path logFile() {
    return dir().resolve("log");
  }

  @Override
  public String toString() {
    return "PostgresServer[" + address() + "]";
  }

  @Override
  void launch() {
    String listen = String.join(",", Stream.concat(Stream.of(HOST), config.alsoListenOn.stream()).toList());
    StringBuilder options = new StringBuilder("-p " + port() + " -k " + dir() + " -c listen_addresses=" + listen);
    config.settings.forEach((k, v) -> options.append(" -c ").append(k).append('=').append(v));
    pgCtl("-l", logFile().toString(), "-w", "-t", Long.toString(config.startTimeout.toSeconds()),
        "-o", options.toString(), "start");
    paused = false;
  }

  private void pgCtl(String... args) {
    List<String> cmd = new ArrayList<>(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString()));
    cmd.addAll(List.of(args));
    try {
      asPostgres(cmd, config.startTimeout.plusSeconds(30));
    } catch (IllegalStateException e) {
      throw new IllegalStateException(e.getMessage() + "; server log: " + log(), e);
    }
  }

  private static String asPostgres(List<String> command, Duration timeout) {
    List<String> cmd = new ArrayList<>();
    if (ROOT) {
      cmd.addAll(List.of("runuser", "-u", USER, "--"));
    }
    cmd.addAll(command);
    return Exec.check(cmd, timeout);
  }

  /**
   * SIGSTOP to the postmaster {@code pid} first (it forks no more), then to its descendants.
   *
   * @return the postmaster and its descendants
   */
  private static List<Long> stopAll(long pid) {
    Signals.send(pid, Signals.Signal.STOP);
    List<Long> all = withChildren(pid);
    all.subList(1, all.size()).forEach(p -> signal(p, Signals.Signal.STOP));
    return all;
  }

  /** Sends {@code signal} unless the process has ended meanwhile (a backend whose client left). */
  private static void signal(long pid, Signals.Signal signal) {
    try {
      Signals.send(pid, signal);
    } catch (IllegalStateException e) {
      if (running(pid)) {
        throw e;
      }
    }
  }

  /** {@code pid} then its descendants. */
  private static List<Long> withChildren(long pid) {
    List<Long> out = new ArrayList<>();
    out.add(pid);
    ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> out.add(d.pid())));
    return out;
  }

  /** Whether the process exists, a zombie included. */
  private static boolean exists(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /** Alive and not a zombie (a killed child whose parent died stays a zombie until init reaps it). */
  private static boolean running(long pid) {
    if (exists(pid)) {
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        int close = stat.lastIndexOf(')');
        return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
      } catch (IOException e) {
        return !Files.isDirectory(Path.of("/proc")); // no /proc: trust ProcessHandle; else it is gone now
      }
    }
    return false;
  }

  private static Optional<Path> findBin() {
    Path lib = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(lib)) {
      try (Stream<Path> versions = Files.list(lib)) {
        Optional<Path> best = versions.map(v -> v.resolve("bin")).filter(PostgresServer::hasServerBinaries)
            .max(Comparator.comparingInt(PostgresServer::majorVersion));
        if (best.isPresent()) {
          return best;
        }
      } catch (IOException e) {
        // fall through to PATH
      }
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && hasServerBinaries(Path.of(d))) {
        return Optional.of(Path.of(d));
      }
    }
    return Optional.empty();
  }

  private static boolean hasServerBinaries(Path bin) {
    return Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl"));
  }

  private static int majorVersion(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** Settings of a {@link PostgresServer}. Not thread-safe. */
  public static final class Builder {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_.:/+-]+");

    private Path binDir;
    private int port;
    private final Map<String, String> settings = new LinkedHashMap<>(Map.of("fsync", "off"));
    private final List<String> alsoListenOn = new ArrayList<>();
    private final List<String> trustClients = new ArrayList<>();
    private Duration startTimeout = Duration.ofSeconds(60);
    private Path tlsCert;
    private Path tlsKey;
    private boolean tlsRequired;

    private Builder() {}

    /**
     * Serves TLS with {@code cert} and {@code key} (PEM, e.g. a {@link TestCa} certificate; copied into the cluster,
     * {@code ssl=on}); {@code required}: clients without TLS are refused ({@code hostssl} in {@code pg_hba.conf}).
     */
    public Builder tls(Path cert, Path key, boolean required) {
      this.tlsCert = Objects.requireNonNull(cert, "cert");
      this.tlsKey = Objects.requireNonNull(key, "key");
      this.tlsRequired = required;
      return this;
    }

    /** Where {@code initdb}, {@code pg_ctl}, {@code psql} are; default the newest under /usr/lib/postgresql. */
    public Builder binDir(Path binDir) {
      if (binDir == null || !hasServerBinaries(binDir)) {
        throw new IllegalArgumentException("binDir must hold initdb and pg_ctl but was " + binDir);
      }
      this.binDir = binDir;
      return this;
    }

    /** The port; default 0, a free one (tried again with another if it is taken meanwhile). */
    public Builder port(int port) {
      this.port = Checks.port(port);
      return this;
    }

    /**
     * A server setting ({@code -c name=value}), e.g. {@code setting("max_connections", "50")}; default only
     * {@code fsync=off}. Values are single words (letters, digits, {@code _.:/+-}).
     */
    public Builder setting(String name, String value) {
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("setting name must be a PostgreSQL parameter name but was '" + name + "'");
      }
      if (value == null || !VALUE.matcher(value).matches()) {
        throw new IllegalArgumentException("setting " + name + ": value must be one word of letters, digits and"
            + " _.:/+- but was '" + value + "'");
      }
      settings.put(name, value);
      return this;
    }

    /**
     * Also listen on {@code address} (an IPv4 address of this host, e.g. the host's end of a {@link NetNamespace}'s
     * link), besides 127.0.0.1; repeatable. Clients from other addresses than 127.0.0.1 need {@link #trustClients}.
     */
    public Builder alsoListenOn(String address) {
      alsoListenOn.add(Checks.ipv4("address", address));
      return this;
    }

    /**
     * Lets clients from {@code cidr} (IPv4, e.g. {@code 10.203.7.8/30}) in without a password, as 127.0.0.1 is
     * ({@code host all all CIDR trust} in {@code pg_hba.conf}); repeatable.
     */
    public Builder trustClients(String cidr) {
      String[] parts = cidr == null ? new String[0] : cidr.split("/", -1);
      if (parts.length != 2 || !parts[1].matches("[0-9]|[12][0-9]|3[0-2]")) {
        throw new IllegalArgumentException("cidr must be an IPv4 network such as 10.203.7.8/30 but was '" + cidr + "'");
      }
      Checks.ipv4("cidr", parts[0]);
      trustClients.add(cidr);
      return this;
    }

    /** Copies the certificate and key into {@code data} (the key 0600, both the server user's). */
    private void installTls(Path data) throws IOException {
      Path cert = data.resolve("server.crt");
      Path key = data.resolve("server.key");
      Files.copy(tlsCert, cert, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.copy(tlsKey, key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
      if (ROOT) {
        Exec.check(List.of("chown", USER, cert.toString(), key.toString()), Duration.ofSeconds(30));
      }
      if (tlsRequired) { // every host line becomes hostssl: a client without TLS finds no entry
        Path hba = data.resolve("pg_hba.conf");
        String rules = Files.readString(hba).replaceAll("(?m)^host(\\s)", "hostssl$1");
        Files.writeString(hba, rules);
      }
    }

    /** How long initdb and a start may take; default 60 s. */
    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = Checks.atLeast("startTimeout", startTimeout, Duration.ofSeconds(1));
      return this;
    }

    /**
     * Creates the cluster and starts it; returns once it accepts connections.
     *
     * @throws IllegalStateException if the binaries are missing or a step fails, with its output and the log
     */
    public PostgresServer start() {
      Path bin = binDir != null ? binDir : findBin().orElseThrow(() -> new IllegalStateException(
          "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on the PATH"));
      Builder frozen = new Builder();
      frozen.settings.putAll(settings);
      frozen.alsoListenOn.addAll(alsoListenOn);
      frozen.startTimeout = startTimeout;
      Path dir = Dirs.temp("allot-pg-");
      try {
        if (ROOT) {
          Exec.check(List.of("chown", USER, dir.toString()), Duration.ofSeconds(30));
        }
        asPostgres(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust",
            "-U", USER, "-E", "UTF8", "--no-locale", "--no-sync"), startTimeout);
        for (String cidr : trustClients) {
          Files.writeString(dir.resolve("data").resolve("pg_hba.conf"), "host all all " + cidr + " trust\n",
              StandardOpenOption.APPEND);
        }
        if (tlsCert != null) {
          installTls(dir.resolve("data"));
          frozen.settings.put("ssl", "on");
          frozen.settings.put("ssl_cert_file", "server.crt"); // relative to the data directory
          frozen.settings.put("ssl_key_file", "server.key");
        }
      } catch (IOException e) {
        Dirs.deleteTree(dir);
        throw new IllegalStateException("cannot write " + dir.resolve("data").resolve("pg_hba.conf") + ": " + e, e);
      } catch (RuntimeException e) {
        Dirs.deleteTree(dir);
        throw new IllegalStateException("cannot create a PostgreSQL cluster: " + e.getMessage(), e);
      }
      for (int attempt = 1; ; attempt++) {
        PostgresServer server = new PostgresServer(frozen, bin, dir, port != 0 ? port : Ports.free());
        try {
          server.launch();
          log.info("PostgreSQL started on {} (dir {})", server.address(), dir);
          return server;
        } catch (RuntimeException e) {
          if (port == 0 && attempt < PORT_ATTEMPTS && server.log().contains("Address already in use")) {
            continue; // the free port was taken meanwhile
          }
          server.close();
          throw e;
        }
      }
    }
  }
}

package io.allot.store.postgres;

import io.allot.testkit.PostgresServer;
import io.allot.testkit.Ports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A streaming standby of a throwaway {@link PostgresServer}: {@code pg_basebackup -R -X stream} into a temporary
 * directory, started with {@code pg_ctl} on 127.0.0.1 and a free port; {@link #promote()} makes it a primary on a new
 * timeline (a failover). As root every server command runs through {@code runuser -u postgres --}, as the testkit's
 * server does. {@link #close()} stops it at once and deletes the directory. Not thread-safe.
 */
final class Standby implements AutoCloseable {
  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

  private final Path bin;
  private final Path dir;
  private final int port;

  private Standby(Path bin, Path dir, int port) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
  }

  /** Copies {@code primary} and starts the copy as its standby; returns once it accepts connections. */
  static Standby of(PostgresServer primary) throws IOException {
    Path bin = bin();
    Path dir = Files.createTempDirectory("allot-pg-standby-");
    if (ROOT) {
      run(List.of("chown", PostgresServer.USER, dir.toString()));
    }
    Standby standby = new Standby(bin, dir, Ports.free());
    try {
      standby.asPostgres(bin.resolve("pg_basebackup").toString(), "-h", primary.host(), "-p",
          Integer.toString(primary.port()), "-U", PostgresServer.USER, "-D", standby.data().toString(), "-R", "-X",
          "stream", "-c", "fast");
      standby.asPostgres(bin.resolve("pg_ctl").toString(), "-D", standby.data().toString(), "-l",
          dir.resolve("log").toString(), "-w", "-t", "60", "-o", "-p " + standby.port + " -k " + dir
              + " -c listen_addresses=" + primary.host(), "start");
      return standby;
    } catch (RuntimeException e) {
      standby.close();
      throw e;
    }
  }

  /** {@code postgresql://postgres@127.0.0.1:PORT/postgres}. */
  String uri() {
    return "postgresql://" + PostgresServer.USER + "@127.0.0.1:" + port + "/postgres";
  }

  /** {@code pg_ctl promote -w}: a primary on a new timeline once this returns. */
  void promote() {
    asPostgres(bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-w", "-t", "60", "promote");
  }

  /** Stops the server at once ({@code -m immediate}) and deletes its directory. */
  @Override
  public void close() {
    try {
      if (Files.exists(data().resolve("postmaster.pid"))) {
        asPostgres(bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-m", "immediate", "-w", "stop");
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // a temporary directory: left behind at worst
      }
    }
  }

  private Path data() {
    return dir.resolve("data");
  }

  private void asPostgres(String... command) {
    List<String> cmd = new ArrayList<>();
    if (ROOT) {
      cmd.addAll(List.of("runuser", "-u", PostgresServer.USER, "--"));
    }
    cmd.addAll(List.of(command));
    run(cmd);
  }

  /** Runs {@code command}, waits at most 120 s, fails with its output unless it exits with 0. */
  private static void run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      boolean done = p.waitFor(120, TimeUnit.SECONDS);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!done || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(command + (done ? " exited with " + p.exitValue() : " timed out") + ": "
            + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }

  /** The newest {@code /usr/lib/postgresql/<version>/bin} with pg_basebackup, else the PATH's. */
  private static Path bin() throws IOException {
    Path lib = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(lib)) {
      try (Stream<Path> versions = Files.list(lib)) {
        List<Path> found = versions.filter(v -> v.getFileName().toString().matches("\\d+"))
            .sorted(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString())))
            .map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_basebackup"))).toList();
        if (!found.isEmpty()) {
          return found.get(found.size() - 1);
        }
      }
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, "pg_basebackup"))) {
        return Path.of(d);
      }
    }
    throw new IllegalStateException("no pg_basebackup under /usr/lib/postgresql/*/bin or on the PATH");
  }
}

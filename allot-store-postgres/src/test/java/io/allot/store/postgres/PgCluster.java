package io.allot.store.postgres;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A throwaway PostgreSQL cluster on a free port: {@code initdb} into a temporary directory, {@code pg_ctl start},
 * trust authentication for user {@code postgres}, listening on 127.0.0.1 only. As root (the system PostgreSQL
 * refuses to run as root) every command runs through {@code runuser -u postgres}.
 */
final class PgCluster implements AutoCloseable {
  private final Path bin;
  private final Path dir;
  private final Path data;
  final int port;
  private final boolean root;

  private PgCluster(Path bin, Path dir, int port, boolean root) {
    this.bin = bin;
    this.dir = dir;
    this.data = dir.resolve("data");
    this.port = port;
    this.root = root;
  }

  /** Starts a cluster, or aborts the calling test (skipped, with the reason) if that is not possible here. */
  static PgCluster startOrSkip() {
    Path bin = findBin();
    Assumptions.assumeTrue(bin != null, "no PostgreSQL server binaries (initdb, pg_ctl) found");
    boolean root = "root".equals(System.getProperty("user.name"));
    PgCluster c = null;
    try {
      Path dir = Files.createTempDirectory("allot-pg");
      c = new PgCluster(bin, dir, freePort(), root);
      if (root) {
        c.exec(false, "chown", "postgres", dir.toString());
      }
      c.exec(true, bin.resolve("initdb").toString(), "-D", c.data.toString(), "-A", "trust", "-U", "postgres",
          "-E", "UTF8", "--no-locale", "--no-sync");
      c.start();
      return c;
    } catch (IOException | RuntimeException e) {
      if (c != null) {
        c.close();
      }
      Assumptions.abort("cannot start a throwaway PostgreSQL cluster: " + e.getMessage());
      throw new AssertionError(e); // not reached
    }
  }

  String url(String userInfo) {
    return "postgresql://" + userInfo + "@127.0.0.1:" + port + "/postgres";
  }

  void start() {
    exec(true, bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("log").toString(),
        "-w", "-t", "60", "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start");
  }

  /** Like a crash: every server process quits at once, no checkpoint (WAL replay at the next start). */
  void stopImmediately() {
    exec(true, bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop");
  }

  @Override
  public void close() {
    try {
      if (Files.exists(data.resolve("postmaster.pid"))) {
        exec(true, bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop");
      }
    } catch (RuntimeException e) {
      System.err.println("stopping the throwaway cluster failed: " + e.getMessage());
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("cannot delete " + dir + ": " + e);
    }
  }

  private void exec(boolean asPostgres, String... command) {
    List<String> cmd = new ArrayList<>();
    if (asPostgres && root) {
      cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    cmd.addAll(List.of(command));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", cmd) + " did not finish");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): "
            + new String(out, StandardCharsets.UTF_8).trim());
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", cmd) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static Path findBin() {
    Path lib = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(lib)) {
      try (Stream<Path> versions = Files.list(lib)) {
        Path best = versions.map(v -> v.resolve("bin"))
            .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
            .max(Comparator.comparingInt(PgCluster::majorVersion)).orElse(null);
        if (best != null) {
          return best;
        }
      } catch (IOException e) {
        // fall through to PATH
      }
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path b = Path.of(d);
      if (Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl"))) {
        return b;
      }
    }
    return null;
  }

  private static int majorVersion(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }
}

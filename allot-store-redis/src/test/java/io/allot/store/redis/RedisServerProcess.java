package io.allot.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway {@code redis-server} for fault injection: no persistence, its own port and directory. Kill, pause
 * (SIGSTOP), resume and restart on the same port. Only processes started here are ever signalled, by pid.
 */
final class RedisServerProcess implements AutoCloseable {
  static final String BINARY = System.getenv().getOrDefault("ALLOT_REDIS_SERVER", "redis-server");

  private final int port;
  private final Path dir;
  private final List<String> extraArgs;
  private final boolean plainPort;
  private Process process;

  private RedisServerProcess(int port, Path dir, List<String> extraArgs, boolean plainPort) {
    this.port = port;
    this.dir = dir;
    this.extraArgs = extraArgs;
    this.plainPort = plainPort;
  }

  /** Whether a redis-server binary can be run here. */
  static boolean available() {
    try {
      Process p = new ProcessBuilder(BINARY, "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Starts a server on a free port and waits until it answers PING. */
  static RedisServerProcess start(String... extraArgs) throws IOException {
    return start(freePort(false), true, extraArgs);
  }

  /**
   * Starts a server on {@code port}; when {@code plainPort} is false the caller's args must open a port (e.g.
   * {@code --port 0 --tls-port P}) and readiness is checked by TCP connect only.
   */
  static RedisServerProcess start(int port, boolean plainPort, String... extraArgs) throws IOException {
    Path dir = Files.createTempDirectory("allot-redis-" + port + "-");
    RedisServerProcess server = new RedisServerProcess(port, dir, List.of(extraArgs), plainPort);
    server.launch();
    return server;
  }

  int port() {
    return port;
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  Path dir() {
    return dir;
  }

  long pid() {
    return process.pid();
  }

  void launch() throws IOException {
    List<String> cmd = new ArrayList<>(List.of(BINARY, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", dir.toString(), "--daemonize", "no"));
    if (plainPort) {
      cmd.addAll(List.of("--port", Integer.toString(port)));
    }
    cmd.addAll(extraArgs);
    process = new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
        .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!(plainPort ? ping() : accepts())) {
      if (!process.isAlive()) {
        throw new IOException("redis-server on port " + port + " exited: " + log());
      }
      if (System.nanoTime() > deadline) {
        kill();
        throw new IOException("redis-server on port " + port + " did not start: " + log());
      }
      sleep(20);
    }
  }

  /** SIGKILL, as a crash would; waits for the process to be gone. */
  void kill() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly(); // SIGKILL ends a stopped (SIGSTOP) process too
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** SIGSTOP: the server keeps its connections open but answers nothing. */
  void pause() {
    signal("STOP");
  }

  /** SIGCONT. */
  void resume() {
    if (process != null && process.isAlive()) {
      signal("CONT");
    }
  }

  /** Starts again on the same port (data is lost: no persistence). */
  void restart() throws IOException {
    kill();
    launch();
  }

  /** Runs redis-cli against this server and returns its output. */
  String cli(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(30, TimeUnit.SECONDS);
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  String log() {
    try {
      String s = Files.readString(dir.resolve("redis.log"));
      return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    kill();
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // temp dir
    }
  }

  private void signal(String sig) {
    try {
      Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start();
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new IllegalStateException("cannot send SIG" + sig + " to redis-server " + process.pid(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean ping() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      s.setSoTimeout(500);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[64];
      int n = in.read(buf);
      // +PONG, or -NOAUTH when a password is required: either way it serves
      return n > 0 && (buf[0] == '+' || buf[0] == '-');
    } catch (IOException e) {
      return false;
    }
  }

  private boolean accepts() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** A port free now; with {@code withBus}, port + 10000 (the Cluster bus port) is free too. */
  static int freePort(boolean withBus) throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = withBus ? ThreadLocalRandom.current().nextInt(20_000, 30_000) : 0;
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(false);
        s.bind(new InetSocketAddress("127.0.0.1", port));
        port = s.getLocalPort();
      } catch (IOException e) {
        continue;
      }
      if (!withBus) {
        return port;
      }
      try (ServerSocket bus = new ServerSocket()) {
        bus.bind(new InetSocketAddress("127.0.0.1", port + 10_000));
        return port;
      } catch (IOException e) {
        // try another
      }
    }
    throw new IOException("no free port found");
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.allot.server.distributor;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;

/** A throwaway redis-server on a free loopback port, for fault injection (kill, restart, pause). */
final class TestRedis implements AutoCloseable {
  final int port;
  private final Path dir;
  private Process process;
  private final List<String> extra;

  TestRedis(String... extraArgs) throws IOException {
    extra = List.of(extraArgs);
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    dir = Files.createTempDirectory("allot-redis");
    start();
  }

  void start() {
    try {
      List<String> cmd = new java.util.ArrayList<>(List.of("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "",
          "--appendonly", "no", "--dir", dir.toString()));
      cmd.addAll(extra);
      process =
          new ProcessBuilder(cmd)
              .redirectOutput(dir.resolve("redis.log").toFile())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start redis-server (is it installed?)", e);
    }
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(this::accepting);
  }

  boolean accepting() {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** SIGKILL. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null) {
      kill();
    }
    File[] files = dir.toFile().listFiles();
    if (files != null) {
      for (File f : files) {
        f.delete();
      }
    }
    dir.toFile().delete();
  }
}
